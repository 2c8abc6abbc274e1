// filter: keeps the elements for which the predicate is true. Cardinality
// becomes unknown, as in tf.data. An error from the predicate is that
// element's error.
#pragma once

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

Result<DatasetPtr> MakeFilterDataset(DatasetPtr input, PredicatePtr predicate);

}  // namespace sluice

// filter: keeps the elements for which the predicate is true. Cardinality
// becomes unknown, as in tf.data. An error from the predicate is that
// element's error.
#pragma once

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

Result<DatasetPtr> MakeFilterDataset(DatasetPtr input, PredicatePtr predicate);

// The filter node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> FilterDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

// take_while: the input's elements up to the first for which the predicate
// is false; that element and everything after it are not read. Cardinality
// is unknown, as in tf.data. An error from the input or from the predicate
// is that element's error, and the iterator goes on with the next element.
// A saved iterator holds whether the predicate has failed, and the input's
// position.
#pragma once

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

Result<DatasetPtr> MakeTakeWhileDataset(DatasetPtr input, PredicatePtr predicate);

// The take_while node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> TakeWhileDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

// unique: the input's elements without repeats, each at its first
// occurrence (tf.data's Dataset.unique). Elements must have one component
// of dtype int32, int64 or string (any shape; two elements are the same
// when their shapes and values are). Cardinality is unknown.
// Every distinct element is remembered for the whole traversal, charged to
// the traversal's RAM budget (dataset/ram_budget.h): an element that would
// pass the budget is a ResourceExhausted error for that element, and is not
// remembered. An error from the input is that element's error.
// A saved iterator holds every element seen, and the input's position.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeUniqueDataset(DatasetPtr input);

// The unique node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> UniqueDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

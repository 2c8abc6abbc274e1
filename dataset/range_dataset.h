// range: Python range semantics, [start, stop) by step (step may be negative;
// empty when the direction never reaches stop). One scalar component.
// Lengths and values are computed without overflow over all of int64; a
// range of more than INT64_MAX elements is InvalidArgument, and so is one
// whose values an integer or bool dtype can't hold (never truncated).
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct RangeOptions {
  int64_t start = 0;
  int64_t stop = 0;
  int64_t step = 1;                // must be non-zero
  DType dtype = DType::kInt64;     // any numeric dtype
};

Result<DatasetPtr> MakeRangeDataset(RangeOptions options);

// The range node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RangeDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

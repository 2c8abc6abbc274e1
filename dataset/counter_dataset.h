// counter: the infinite arithmetic sequence start, start + step,
// start + 2 * step, ... (tf.data's Dataset.counter), one scalar component.
// Values are exact: an element whose value the dtype can't hold (or past
// int64's range) is an OutOfRange error, and so is every later one, never a
// wrapped or truncated value.
// A saved iterator holds the count of elements produced.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct CounterOptions {
  int64_t start = 0;  // must fit dtype
  int64_t step = 1;   // any, 0 included (a constant sequence)
  DType dtype = DType::kInt64;  // an integer (uint8, int32, int64) or floating dtype
};

Result<DatasetPtr> MakeCounterDataset(CounterOptions options);

// The counter node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> CounterDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

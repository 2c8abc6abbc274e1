// enumerate: pairs each element with its index (int64 scalar, first
// component "index"), counting from start. Indices never wrap: an element
// whose index would pass INT64_MAX is an OutOfRange error (its input
// element is consumed, and so is every later one's, each an error).
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct EnumerateOptions {
  int64_t start = 0;
};

Result<DatasetPtr> MakeEnumerateDataset(DatasetPtr input, EnumerateOptions options);

// The enumerate node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> EnumerateDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

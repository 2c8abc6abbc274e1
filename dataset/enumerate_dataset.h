// enumerate: pairs each element with its index (int64 scalar, first
// component "index"), counting from start.
#pragma once

#include "dataset/dataset.h"

namespace sluice {

struct EnumerateOptions {
  int64_t start = 0;
};

Result<DatasetPtr> MakeEnumerateDataset(DatasetPtr input, EnumerateOptions options);

}  // namespace sluice

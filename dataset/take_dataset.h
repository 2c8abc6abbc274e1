// take: at most count elements; -1 takes all.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct TakeOptions {
  int64_t count = -1;  // >= -1
};

Result<DatasetPtr> MakeTakeDataset(DatasetPtr input, TakeOptions options);

}  // namespace sluice

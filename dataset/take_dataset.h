// take: at most count elements; -1 takes all.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct TakeOptions {
  int64_t count = -1;  // >= -1
};

Result<DatasetPtr> MakeTakeDataset(DatasetPtr input, TakeOptions options);

// The take node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> TakeDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

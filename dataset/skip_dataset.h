// skip: drops the first count elements; -1 drops all of them.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct SkipOptions {
  int64_t count = 0;  // >= -1
};

Result<DatasetPtr> MakeSkipDataset(DatasetPtr input, SkipOptions options);

// The skip node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> SkipDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

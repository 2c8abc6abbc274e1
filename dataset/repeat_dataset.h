// repeat: count passes over the input, each with a fresh input iterator;
// count -1 repeats forever. An input that produces nothing in a pass ends the
// repetition instead of spinning.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct RepeatOptions {
  int64_t count = -1;  // >= 0, or -1 for forever
};

Result<DatasetPtr> MakeRepeatDataset(DatasetPtr input, RepeatOptions options);

// The repeat node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RepeatDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

// interleave: maps each input element to a dataset and interleaves them in
// tf.data's exact order: cycle_length open datasets, block_length elements
// from each in turn; an exhausted dataset frees its slot (costing the cursor
// one move), and a slot is refilled from the next input element only when
// the cursor reaches it. Sequential for now.
// A saved iterator (dataset/iterator_state.h) holds, per open slot, the
// input element and the slot iterator's state; a restore calls the function
// again on that element, so it must be deterministic.
#pragma once

#include "dataset/dataset.h"
#include "dataset/functions.h"

namespace sluice {

struct InterleaveOptions {
  int64_t cycle_length = kAutotune;  // > 0; kAutotune = the number of CPU cores
  int64_t block_length = 1;          // > 0
};

Result<DatasetPtr> MakeInterleaveDataset(DatasetPtr input, DatasetFunctionPtr fn,
                                         InterleaveOptions options);

}  // namespace sluice

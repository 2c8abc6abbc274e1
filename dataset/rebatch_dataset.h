// rebatch: the rows of the input's batches, batched again by batch_sizes
// (tf.data's Dataset.rebatch): what unbatch().batch(n) gives, with one
// copy (none where an input batch holds a whole output batch). With several
// sizes the batches take them in turn, cycling; the last batch is smaller
// unless drop_remainder. It reads its input through unbatch, which
// `sluice describe` shows under it, and has unbatch's errors (a scalar
// component is InvalidArgument when the op is built) and batch's (rows of
// different shapes; an input error mid-batch drops the rows gathered, and
// the next batch has the same size).
// A saved iterator holds the place in the cycle of sizes and the input's
// position.
#pragma once

#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct RebatchOptions {
  // The batch sizes, each >= 1, taken in turn; one size for equal batches.
  std::vector<int64_t> batch_sizes;
  bool drop_remainder = false;  // drop a final partial batch
};

Result<DatasetPtr> MakeRebatchDataset(DatasetPtr input, RebatchOptions options);

// The rebatch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RebatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

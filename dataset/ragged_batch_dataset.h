// ragged_batch: like batch, but a component whose rows differ in length
// (its first dim is unknown in the input's spec, as a VarLen feature's or a
// splitter's tokens) is batched as values + row lengths, the layout
// parse_example's VarLen features and the text splitters give
// (ops/row_lengths.h): the rows end to end along dim 0, then
// `<component>/row_lengths`, int64 [N], each row's first dim. tf.data's
// ragged_batch gives a RaggedTensor of the same rows. Other components are
// stacked as batch stacks them, and must have equal shapes within a batch.
// A ragged component's other dims must be equal within a batch (its rows
// are ragged in their first dim only); every component needs a known rank.
// The last batch is smaller unless drop_remainder.
//
// Sizes are checked: rows are charged against the traversal's RAM budget as
// they are gathered, and a batch that would pass it is ResourceExhausted
// for that batch (as padded_batch's). An input error is returned at once
// and the rows gathered are dropped.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct RaggedBatchOptions {
  int64_t batch_size = 0;  // > 0
  bool drop_remainder = false;
};

Result<DatasetPtr> MakeRaggedBatchDataset(DatasetPtr input, RaggedBatchOptions options);

// The ragged_batch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RaggedBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

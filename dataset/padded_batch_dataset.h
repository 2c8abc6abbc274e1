// padded_batch: like batch, but components may differ in shape: each is
// padded to padded_shapes (a fixed dim pads to that size; -1 pads to the
// largest in the batch) with padding_values (default 0 / empty string).
// An element larger than a fixed padded dim is a DataLoss error, as tf.data.
// Sizes are checked: a padded shape whose fixed dims overflow int64 bytes
// is InvalidArgument when the dataset is made; a batch whose size
// overflows is InvalidArgument, and one that can't fit in the traversal's
// RAM budget (its rows as they are gathered, or the padded batch) is
// ResourceExhausted, for that batch.
#pragma once

#include <optional>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct PaddedBatchOptions {
  int64_t batch_size = 0;  // > 0
  // One per component; empty: every dim of every component pads to the batch
  // maximum (requires known ranks).
  std::vector<PartialShape> padded_shapes;
  // Scalars: one per component, or one for all, or none (0 / "").
  std::vector<Tensor> padding_values;
  bool drop_remainder = false;
};

Result<DatasetPtr> MakePaddedBatchDataset(DatasetPtr input, PaddedBatchOptions options);

// The padded_batch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> PaddedBatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

// batch: stacks batch_size consecutive elements along a new leading
// dimension. The last batch is smaller unless drop_remainder. All elements
// of a batch must have the same shape per component, else InvalidArgument
// naming the component and both shapes. An error from the input mid-batch is
// returned at once and the rows gathered so far are dropped (as tf.data).
#pragma once

#include "dataset/dataset.h"

namespace sluice {

struct BatchOptions {
  int64_t batch_size = 0;       // > 0
  bool drop_remainder = false;  // drop a final partial batch
};

Result<DatasetPtr> MakeBatchDataset(DatasetPtr input, BatchOptions options);

// The number of batches of `input_cardinality` elements (which may be
// kInfiniteCardinality or kUnknownCardinality); padded_batch shares it.
int64_t BatchedCardinality(int64_t input_cardinality, int64_t batch_size, bool drop_remainder);

}  // namespace sluice

// batch: stacks batch_size consecutive elements along a new leading
// dimension. The last batch is smaller unless drop_remainder. All elements
// of a batch must have the same shape per component, else InvalidArgument
// naming the component and both shapes. An error from the input mid-batch is
// returned at once and the rows gathered so far are dropped (as tf.data).
// With num_parallel_calls, batches are stacked on the traversal's CPU pool,
// several at once (dataset/parallel_transform.h); the input is still read
// in order, one element at a time.
//
// Batch tensors are allocated against the traversal's RAM budget: a batch
// whose size overflows is InvalidArgument, one above the budget (or that
// the host can't allocate) is ResourceExhausted, for that batch. They are
// allocated for the rows that will come: the whole batch when the input is
// infinite or holds it, else growing as rows arrive, so a batch size far
// above what the input holds costs only what it holds.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct BatchOptions {
  int64_t batch_size = 0;       // > 0
  bool drop_remainder = false;  // drop a final partial batch
  // 0: sequential. N >= 1: up to N batches being stacked or waiting for the
  // consumer. kAutotune: the autotuner's choice. Batches larger than
  // kMaxParallelBatchSize are stacked sequentially: a parallel batch gathers
  // all its elements before stacking them, the sequential one copies each
  // row into the budgeted batch tensors as it arrives.
  static constexpr int64_t kMaxParallelBatchSize = 65536;
  int64_t num_parallel_calls = 0;
  // With num_parallel_calls; kDefault: the traversal's option.
  Determinism deterministic = Determinism::kDefault;
};

Result<DatasetPtr> MakeBatchDataset(DatasetPtr input, BatchOptions options);

// The batch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> BatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

// One batch of up to `batch_size` rows read from `input` through
// GetNextRun (batch's and rebatch's iterators), stacked with one copy, or
// none when one run is the whole batch; std::nullopt at the end of the
// input, and for a final partial batch when drop_remainder. Rows whose
// shapes differ from the first's are InvalidArgument; an input error is
// returned at once, dropping the rows gathered. The batch tensors are
// allocated within `limit`, for as many rows as `input_cardinality` says can
// come, growing as they do. Errors start with `op`.
Result<std::optional<Element>> GatherBatch(std::string_view op, Iterator& input, int64_t batch_size,
                                           bool drop_remainder, int64_t input_cardinality,
                                           const Tensor::AllocateOptions& limit);

// The number of batches of `input_cardinality` elements (which may be
// kInfiniteCardinality or kUnknownCardinality); padded_batch shares it.
int64_t BatchedCardinality(int64_t input_cardinality, int64_t batch_size, bool drop_remainder);

}  // namespace sluice

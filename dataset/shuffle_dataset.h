// shuffle: tf.data's refill-then-draw buffer. Every GetNext first fills the
// buffer to buffer_size from the input, then returns a uniformly drawn
// buffered element and puts nothing in its place until the next refill; at
// the end of the input the buffer drains by the same draw.
// With reshuffle_each_iteration each new iterator (epoch) draws a different
// order from the seed; without it every iterator repeats the same order.
// shuffle before repeat never mixes epochs: each pass is one iterator.
// Elements enter the buffer through Unpinned (core/element.h): a record that
// views its read chunk is copied out rather than keep the chunk alive for
// as long as it waits to be drawn. The buffer's bytes count against the
// traversal's RAM budget (dataset/ram_budget.h), each element with the
// bookkeeping of its tensors: other buffers throttle to make room for it,
// and a buffer that alone passes the budget is ResourceExhausted (a huge
// buffer_size fails at the element that would pass it, not by exhausting
// the host's memory).
// A saved iterator (dataset/iterator_state.h) holds the whole buffer, the
// generator's state, the seed and the epoch; a restore adopts the seed and
// epoch (an unseeded shuffle's random seed too), so the following epochs of
// a repeat reshuffle exactly as in the saved run.
#pragma once

#include <optional>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct ShuffleOptions {
  int64_t buffer_size = 0;              // > 0 (1 = no shuffling)
  std::optional<uint64_t> seed;         // unset: a random seed per dataset
  bool reshuffle_each_iteration = true;
};

Result<DatasetPtr> MakeShuffleDataset(DatasetPtr input, ShuffleOptions options);

// The shuffle node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ShuffleDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

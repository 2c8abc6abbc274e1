// interleave: maps each input element to a dataset and interleaves them in
// tf.data's exact order: cycle_length open datasets, block_length elements
// from each in turn; an exhausted dataset frees its slot (costing the cursor
// one move), and a slot is refilled from the next input element only when
// the cursor reaches it.
//
// With num_parallel_calls, worker threads of the op's own (their reads may
// block on I/O, so they don't run on the CPU pool) read ahead from the
// cycle's open datasets and from the next few input elements' datasets,
// opened early ("future" elements) to hide the latency of opening them,
// each into a small buffer. With deterministic (the default) the order is
// exactly the sequential one, whatever the parallelism: the consumer still
// follows the cursor and waits for the slot it points at. Without, it takes
// the first slot, from the cursor on, that has a result ready, so a slow
// dataset doesn't hold up the others. Buffered results are charged to the
// RAM budget (dataset/ram_budget.h), and workers pause while it is full.
// Errors (from the input, from opening a dataset, from a dataset's
// iterator) arrive where the sequential op would return them, at every
// parallelism: an error from a dataset's iterator doesn't use up a turn of
// its block, so the slot's next element follows it (as in tf.data's
// sequential kernel; tf.data's parallel kernel counts the error as one of
// the block's elements, so its order differs from its own sequential one).
// An iterator keeps cycle_length slots, or as many as the input has
// elements when its cardinality is known and smaller (slots past the last
// input element would never open: the order is the same).
// A saved iterator (dataset/iterator_state.h) holds, per open slot, the
// input element and the slot iterator's state; a restore calls the function
// again on that element, so it must be deterministic.
#pragma once

#include <functional>
#include <string_view>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

// The largest cycle_length: each slot may hold an open dataset and its
// read-ahead buffer, so a larger cycle is rejected when the op is made.
inline constexpr int64_t kMaxInterleaveCycleLength = 1 << 16;

struct InterleaveOptions {
  // 1..kMaxInterleaveCycleLength; kAutotune = the number of CPU cores.
  int64_t cycle_length = kAutotune;
  int64_t block_length = 1;  // > 0
  // 0: sequential, on the caller's thread. N >= 1: N worker threads, at
  // most cycle_length (a larger N is InvalidArgument, as in tf.data; with
  // cycle_length kAutotune, N is capped at the core count it resolves to).
  // kAutotune: the autotuner's choice, 1..cycle_length.
  int64_t num_parallel_calls = 0;
  Determinism deterministic = Determinism::kDefault;  // with num_parallel_calls
};

Result<DatasetPtr> MakeInterleaveDataset(DatasetPtr input, DatasetFunctionPtr fn,
                                         InterleaveOptions options);

// An op that runs interleave's iterators under its own name and spec node:
// flat_map (dataset/flat_map_dataset.h) is interleave with cycle_length 1.
struct InterleaveIdentity {
  // The op's name in errors, descriptions and the profile; a literal.
  std::string_view op_name = "interleave";
  // Appends the op's node to a spec, after its input's chain; null:
  // interleave's own node, with its options (which DebugParams then shows).
  std::function<Status(const DatasetFunction& fn, spec::Pipeline* pipeline)> write_node;
};
Result<DatasetPtr> MakeInterleaveDatasetAs(InterleaveIdentity identity, DatasetPtr input, DatasetFunctionPtr fn,
                                           InterleaveOptions options);

// The interleave node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> InterleaveDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

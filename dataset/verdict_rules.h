// Verdict rules: from the stages of a profile (dataset/profiler.h), the
// stage that limits a pipeline, why, and the remedy with its estimated gain.
// docs/profiling.md explains each rule with its evidence and remedy.
//
// The rules, in the order they are tried:
//  A. The starved buffer. An async stage (prefetch, a parallel map or
//     interleave) whose consumer waited >= kConsumerWaitShare of the wall
//     time is where the consumer loses time. If it has a buffer_size
//     (prefetch) and its buffer was full at >= kFullShare of the consumer's
//     arrivals, the producer keeps up on average but comes in bursts: a
//     buffer_size given explicitly is too small (kBufferTooSmall). An autotuned buffer_size is never advised:
//     the reason says what the tuner chose, and the rules go on with the
//     producer side. The stages under the starved stage (and it, for one
//     with workers of its own) are the candidates for B and C, whose gain
//     is then at most the consumer's wait share; without a starved stage
//     every stage is a candidate.
//  B. A row-wise map called per element ahead of a batch (kPerElementMap),
//     named when its estimated gain is >= kMinSpecificGain and at least
//     kSpecificShareOfBusiest of the busiest candidate's share: a
//     map of a row-wise function (parse_example on records of fixed-length
//     features, cast, scale_shift, ...) called once per element, with a
//     batch above it. Batching first and mapping the batch removes the
//     per-element calls and lets the stages between handle the smaller
//     unmapped elements. Gain: the map's share of the busy time less what
//     mapping whole batches costs (kBatchedMapCostRatio of it), plus
//     kUnmappedMoveSaving of the shares of the stages from it up to the
//     batch, which move one input component per element instead of the
//     map's outputs.
//     Or two parallel maps, one the other's input (kTinyMap), named on
//     the same terms: each hands every element to the CPU pool and back
//     (kHandOffNs of CPU an element, which no stage's own time holds), and
//     one parallel map whose function does both hands it off once; when
//     the functions are tiny that is most of their cost. Gain: one
//     hand-off per element, of the pipeline's CPU time (each stage's own
//     work on all its workers plus every parallel map's hand-offs).
//  C. Otherwise the busiest candidate limits the pipeline:
//     - a source (no inputs) is too slow for its consumer (kSourceBound):
//       its measured rate against the rate the stages above would take it
//       at; the remedy reads k = that ratio in parallel (tfrecord's
//       num_parallel_reads, an interleave's cycle_length and
//       num_parallel_calls), or caches. Gain: its share of the busy time
//       times (1 - 1/k).
//     - any other stage is CPU-bound (kCpuBound): raise its parallelism
//       when it is explicit, set it to kAutotune when the op is sequential;
//       when it is autotuned the reason says what the tuner chose, and the
//       remedy is what the tuner can't do (a larger cpu_budget, cache(),
//       a cheaper function). Gain: its share of the busy time.
// Thread safety: pure functions over their arguments.
#pragma once

#include <vector>

#include "sluice/dataset/profiler.h"

namespace sluice {

inline constexpr double kConsumerWaitShare = 0.10;
inline constexpr double kFullShare = 0.25;
inline constexpr double kMinSpecificGain = 0.10;
inline constexpr double kSpecificShareOfBusiest = 0.5;
// What mapping a batch costs per row, as a fraction of mapping one element
// with its own call: 0.14 measured for parse_example on the demo's records
// (examples/specs/demo_input*.pbtxt), rounded up.
inline constexpr double kBatchedMapCostRatio = 0.25;
// The part of their cost the stages between a per-element map and its
// batch (the batch included) save when they move its inputs instead of its
// outputs: 0.6 measured on the demo's pipeline, where parse_example makes
// two components of one; taken as half.
inline constexpr double kUnmappedMoveSaving = 0.5;
// The CPU a parallel map spends per element besides its function: the
// runner gathering it into a group for the CPU pool, the task, the consumer
// taking its output, and the wake-ups between them. 0.55 us measured as the
// process CPU time that fusing two parallel maps of trivial C++ callables
// into one saves (range -> map -> map -> batch, num_parallel_calls = 2,
// range handing out rows of its runs; median of 11 pairs on a 2-core
// machine, 0.50-0.65 us each). It is the least a hand-off costs: on
// machines with more cores, or more load, wake-ups cost more (fusing saved
// 38-44% of the process CPU time on a CI machine where 0.55 us predicted
// 17-29%), so the gain the rule estimates from it is a floor.
inline constexpr double kHandOffNs = 550;
// Parallel reads the source remedy suggests at most.
inline constexpr int64_t kMaxSuggestedParallelReads = 16;

// The verdict for `stages` (AnalyzeProfile's, by node index order).
// `wall_ns`: the report's wall time. kNone when nothing was busy.
Verdict DecideVerdict(const std::vector<StageReport>& stages, int64_t wall_ns);

}  // namespace sluice

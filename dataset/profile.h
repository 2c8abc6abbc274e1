// Profile: what every iterator of a profiled traversal measures about itself.
//
// Profiling is off unless IteratorContext::profile is set (or SLUICE_PROFILE=1
// for Dataset::MakeIterator() without a context, see dataset/profiler.h).
// When it is on, Dataset::NewIterator gives each iterator a ProfileNode and
// its own counters in it (an IteratorProfile, dataset/iterator_profile.h),
// and the Iterator base class's GetNext/GetNextRun wrappers count every
// call's elements and time some calls (one steady_clock pair): a node's
// first kAlwaysTimedCalls calls, then one in each window of kSamplePeriod
// calls, at a random offset, whose time and bytes count kSamplePeriod times.
// Two clock reads cost ~85 ns here, more than a cheap stage's work; sampling,
// and counters that each have one writer, keep the enabled profiler's cost
// low (benchmarks/profiler_overhead_bench.cc) while counts stay exact and
// times unbiased. Ops never time themselves.
// A node's identity is its op name and its index in registration order,
// which for a static graph is DescribeGraph's order (the root's input is 0,
// then depth first); its parent is the node whose iterator made it.
// Iterators made again for the same place in the graph (a repeat's next
// epoch, an interleave's next sub-dataset of the same op, another traversal
// with the same context) add to the same node.
//
// Per node: calls, elements and bytes produced, the span its iterators were
// alive (the report's wall time, exact however calls are sampled), wall
// time inside GetNext,
// time inside its inputs' GetNext (input wait: the wall time of the nodes it
// is parent of, summed by Snapshot), hence self (busy) time; for
// async nodes (prefetch: a buffer filled by its own thread) the consumer's
// time inside GetNext is time waiting on the node, and the node samples its
// buffer occupancy when the consumer arrives. Ops with tunable parameters
// report each one's value and whether it is autotuned, and a map the
// function it applies. The first N calls per node are
// kept as trace events. A training loop reports its steps with
// RecordConsumerStep. dataset/profiler.h turns a Snapshot() into a report.
//
// Thread safety: all methods may be called concurrently (counters are
// relaxed atomics, a call's with a single writer, see iterator_profile.h;
// registration, an iterator's end and trace events take a mutex).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "sluice/dataset/iterator_profile.h"

namespace sluice {

class Dataset;

// A parameter an op can have the autotuner set (kAutotune) or take as given.
enum class TunableParameter { kNumParallelCalls, kBufferSize, kCycleLength };
inline constexpr int kTunableParameterCount = 3;
std::string_view TunableParameterName(TunableParameter parameter);  // "num_parallel_calls", ...

// What a profiled stage reports of the function it applies (map's), for the
// profiler's verdict: its name and BoundElementFunction::row_wise (applied
// to a batch, it equals applying it to each row and stacking).
struct StageFunction {
  std::string name;  // empty: the stage applies none
  bool row_wise = false;
};

struct TraceEvent {
  int64_t start_ns = 0;  // since the profile's creation
  int64_t duration_ns = 0;
};

// One place in the iterator tree. Created by Profile::AddNode only.
class ProfileNode {
 public:
  // Calls timed: a node's first kAlwaysTimedCalls, then one in each window
  // of kSamplePeriod. Two clock reads cost ~85 ns here (kvm-clock): a stage
  // doing ~0.1 us an element pays ~0.3% for its samples at 256 (~1.3% at
  // 64, too much for a pipeline of cheap stages), while a cheap stage still
  // has thousands of timed calls a second.
  static constexpr int64_t kAlwaysTimedCalls = 4096;
  static constexpr int64_t kSamplePeriod = 256;

  // The consumer found `size` of `capacity` elements buffered.
  void RecordBufferSample(int64_t size, int64_t capacity);
  // An async op's own work, done off its consumer's thread (a parallel
  // map's calls): `ns` of one worker's time; and the parallelism it runs at.
  void RecordAsyncWork(int64_t ns) { work_ns_.fetch_add(ns, std::memory_order_relaxed); }
  void RecordParallelism(int64_t parallelism) { parallelism_.store(parallelism, std::memory_order_relaxed); }
  // A tunable parameter's current value and whether the autotuner sets it;
  // the last call wins. Two relaxed stores: ops call it where they read
  // the value.
  void RecordTunable(TunableParameter parameter, int64_t value, bool autotuned) {
    const int i = static_cast<int>(parameter);
    tunable_values_[i].store(value, std::memory_order_relaxed);
    tunable_autotuned_[i].store(autotuned ? 1 : 0, std::memory_order_relaxed);
  }

  int index() const { return index_; }
  // Nanoseconds since the profile's creation.
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_).count();
  }
  // The node charged with this node's time as its input wait; null at the top.
  ProfileNode* parent() const { return parent_; }

 private:
  friend class Profile;
  friend class IteratorProfile;
  ProfileNode(int index, ProfileNode* parent, std::string op_name, bool source, int64_t max_events,
              std::chrono::steady_clock::time_point epoch);

  // An iterator's counters join the node. Returns the sampling state it
  // continues from: the node's, unless another live iterator holds that;
  // then one of its own (the always-timed calls left, a new random state).
  SamplingState Register(const IteratorProfile* iterator);
  // They leave it, their counts added to folded_ and, from the iterator
  // that held it, the sampling state kept for the next one.
  void Unregister(const IteratorProfile* iterator, const SamplingState& sampling);
  // The counts of all its iterators, live and gone.
  CallTotals Totals() const;
  // From its first iterator's start to its last one's end (now while one is
  // live); start -1 when none started.
  void ActiveSpan(int64_t* start_ns, int64_t* end_ns) const;
  // Keeps a timed call as a trace event while the node has room; false
  // once it has none.
  bool RecordEvent(int64_t start_ns, int64_t duration_ns);

  const int index_;
  const std::chrono::steady_clock::time_point epoch_;
  ProfileNode* parent_;  // changed only while registering (Profile::Delegate)
  std::string op_name_;  // guarded by Profile::mu_ after registration
  const bool source_;    // no inputs: reads or makes its data
  bool async_ = false;   // guarded by Profile::mu_
  bool delegated_ = false;  // guarded by Profile::mu_; another node's iterator stands in for this one
  const int64_t max_events_;

  std::atomic<int64_t> samples_{0}, fill_permille_sum_{0}, capacity_sum_{0}, empty_samples_{0}, full_samples_{0};
  std::atomic<int64_t> work_ns_{0}, parallelism_{1};
  // By TunableParameter; kUnreported until an op records one.
  static constexpr int64_t kUnreported = -2;
  std::atomic<int64_t> tunable_values_[kTunableParameterCount] = {kUnreported, kUnreported, kUnreported};
  std::atomic<int> tunable_autotuned_[kTunableParameterCount] = {0, 0, 0};
  StageFunction function_;  // guarded by Profile::mu_
  std::atomic<int64_t> events_recorded_{0};
  mutable std::mutex mu_;
  std::vector<const IteratorProfile*> live_;  // guarded by mu_
  CallTotals folded_;                         // guarded by mu_; of iterators destroyed
  SamplingState sampling_;                    // guarded by mu_; while no iterator holds it
  const IteratorProfile* sampling_holder_ = nullptr;  // guarded by mu_
  int64_t fresh_states_ = 0;                  // guarded by mu_; handed to iterators beside the holder
  int64_t first_start_ns_ = -1, last_end_ns_ = 0;  // guarded by mu_; of its iterators' lifetimes
  std::vector<TraceEvent> events_;            // guarded by mu_; the first max_events_ timed calls
};

// A tunable parameter as the op last reported it.
struct TunableSnapshot {
  TunableParameter parameter = TunableParameter::kNumParallelCalls;
  int64_t value = 0;       // what the op ran with (the tuner's choice when autotuned)
  bool autotuned = false;  // given as kAutotune
};

// A node's counters at one moment, with derived times.
struct NodeSnapshot {
  int index = 0;
  int parent = -1;       // index, or -1 at the top
  std::string op_name;   // "map"; "tfrecord>interleave" where an op delegates to a plan
  int depth = 0;
  bool async = false;
  bool source = false;
  int64_t calls = 0, elements = 0, bytes = 0;
  int64_t elapsed_ns = 0;        // wall time inside GetNext
  // Inside its inputs' GetNext: for a stage without workers, as measured in
  // its own timed calls (elapsed - self, dataset/iterator_profile.h); for
  // an async one, its inputs' time (on its producer thread).
  int64_t input_ns = 0;
  int64_t self_ns = 0;           // busy: its own part of elapsed; async: own work on its workers / parallelism
  int64_t consumer_wait_ns = 0;  // async only: its consumer's time inside GetNext
  // From its first iterator's start to its last one's end (the snapshot's
  // time while one is live), measured for every iterator, not sampled;
  // start -1 when none started.
  int64_t start_ns = -1, end_ns = 0;
  int64_t buffer_samples = 0;
  double mean_fill = 0;          // mean of size/capacity at the consumer's arrival
  double mean_capacity = 0;
  double empty_fraction = 0;     // of samples with nothing buffered
  double full_fraction = 0;      // of samples with the buffer at capacity
  int parallelism = 1;           // work the node runs at once (its num_parallel_calls; last value set)
  std::vector<TunableSnapshot> tunables;  // those the op reported, by parameter
  StageFunction function;        // the function it applies, if any
  std::vector<TraceEvent> events;

  // The reported tunable `parameter`, or null.
  const TunableSnapshot* FindTunable(TunableParameter parameter) const;
};

struct ProfileSnapshot {
  std::vector<NodeSnapshot> nodes;  // by index; delegated nodes left out
  int64_t consumer_steps = 0;
  int64_t consumer_wait_ns = 0;  // sum of RecordConsumerStep's waiting_for_input
  int64_t consumer_step_ns = 0;  // sum of its step_duration
};

class Profile {
 public:
  struct Options {
    int64_t max_trace_events_per_node = 2000;
  };
  Profile() : Profile(Options()) {}
  explicit Profile(Options options);
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;

  // A training loop's step: `waiting_for_input` of `step_duration` was spent
  // waiting for the next batch.
  void RecordConsumerStep(std::chrono::nanoseconds waiting_for_input, std::chrono::nanoseconds step_duration);

  ProfileSnapshot Snapshot() const;

  // Nanoseconds since this profile was created.
  int64_t NowNs() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_).count();
  }

  // Registration, for Dataset::NewIterator. The node for `dataset` made by
  // the iterator of `parent` (null at the top) over `parent_dataset`, found
  // or added.
  ProfileNode* AddNode(const Dataset& dataset, ProfileNode* parent, const Dataset* parent_dataset);
  // `outer`'s iterator is `inner`'s (an op that returns its plan's iterator):
  // `inner` takes outer's place under outer's parent and outer is hidden.
  void Delegate(ProfileNode* outer, ProfileNode* inner);
  void SetAsync(ProfileNode* node, bool async);
  void SetFunction(ProfileNode* node, StageFunction function);

 private:
  const Options options_;
  const std::chrono::steady_clock::time_point epoch_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<ProfileNode>> nodes_;  // guarded by mu_; by index
  // (parent index, input index / top dataset address / -1 for a dataset
  // made while iterating, op name) -> node. Guarded by mu_.
  std::map<std::tuple<int, intptr_t, std::string>, ProfileNode*> by_key_;
  std::atomic<int64_t> steps_{0}, step_wait_ns_{0}, step_ns_{0};
};

}  // namespace sluice

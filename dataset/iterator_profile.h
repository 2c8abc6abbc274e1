// IteratorProfile: one profiled iterator's own counters in its ProfileNode
// (dataset/profile.h), and its choice of which calls to time.
//
// Why per iterator: a node's counters were shared atomics, and their
// read-modify-writes (a lock-prefixed instruction each, several per stage
// and call) cost a cheap stage ~30 ns a call. One iterator's GetNext is
// never called by two threads at once (a caller hands an iterator to
// another thread with a mutex or a join), so its counters have a single
// writer: relaxed loads and stores, plain moves on x86, and any thread may
// read them for a snapshot. The node sums the counters of its live
// iterators and the totals folded in by those destroyed, so iterators that
// share a node (a repeat's epochs, an interleave's sub-iterators) add up
// exactly.
//
// Which calls are timed: every call while the node has had fewer than
// ProfileNode::kAlwaysTimedCalls (as seen when this iterator registered),
// then one call in each window of kSamplePeriod consecutive calls, at an
// offset drawn at random per window, whose time and bytes count
// kSamplePeriod times: every call has the same chance, so the estimates
// are unbiased, and a period in the data can't line up with the samples.
// The windows run over the node's calls, not one iterator's: an iterator
// takes the node's SamplingState when it starts and hands it back when it
// ends, so a traversal of a few calls continues the window the last one
// left (were each to start its own, the calls before its first timed one
// would be timed far too rarely, and never if it has fewer calls than the
// offset drawn).
//
// A stage's own time is measured inside its timed calls: while a call is
// timed, every call its inputs make on the same thread is timed too
// (TimedCall), and the call's own time is its time less theirs. Its
// estimate is then a sum over the same sampled calls, not the difference
// of the stage's and its inputs' totals, which are sampled at unrelated
// calls: a cheap stage over an input whose calls vary (an interleave that
// opens a file now and then) would read as no time at all that way. The input's
// calls that only serve a timed call above count for that call alone, not
// in the input's own totals, whose sampling stays unbiased.
//
// The counters every call updates (CallCounters) live in the Iterator
// itself, beside its vtable pointer, and its GetNext counts an untimed call
// inline: a countdown and two counter updates on a line the call touches
// anyway. A timed call goes out of line to BeginTimedCall/EndTimedCall.
//
// Thread safety: CallCounters' writes, BeginTimedCall and EndTimedCall by
// the thread inside the iterator's GetNext only; Read by any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace sluice {

class Profile;
class ProfileNode;

// What iterators counted: one's, or a node's sum.
struct CallTotals {
  int64_t calls = 0, elements = 0;
  // Estimated from the timed calls; self_ns is elapsed_ns less the time of
  // the calls the node's inputs made inside them on the same thread.
  int64_t bytes = 0, elapsed_ns = 0, self_ns = 0;

  void Add(const CallTotals& other);
};

// The timed call running on this thread, if any (TimedCall's frame).
struct TimedCallFrame {
  int64_t input_ns = 0;  // in the calls of its inputs on this thread
};
extern constinit thread_local TimedCallFrame* current_timed_call;
// Whether a call on this thread is timed: an input's call must then be.
inline bool InTimedCall() { return current_timed_call != nullptr; }

// One timed call, from construction to End (or destruction, should the
// call end by an exception): the frame its inputs' calls on this thread add
// their time to. Not copyable; made and ended on one thread.
class TimedCall {
 public:
  TimedCall() : outer_(current_timed_call) { current_timed_call = &frame_; }
  ~TimedCall() { current_timed_call = outer_; }
  TimedCall(const TimedCall&) = delete;
  TimedCall& operator=(const TimedCall&) = delete;
  // The call took `elapsed_ns`: it counts as input time of the timed call
  // around it. Returns the time of its own inputs' calls.
  int64_t End(int64_t elapsed_ns) {
    current_timed_call = outer_;
    if (outer_ != nullptr) outer_->input_ns += elapsed_ns;
    return frame_.input_ns;
  }

 private:
  TimedCallFrame frame_;
  TimedCallFrame* const outer_;
};

// Where a node's sampling stands: what an iterator continues from.
struct SamplingState {
  int64_t always_timed_left = 0;  // of the node's first kAlwaysTimedCalls
  int64_t countdown = 1;          // calls until the next timed one, inclusive
  int64_t offset = 0;             // of the next (or last) timed call in its window
  uint64_t rng = 1;               // xorshift state, never 0
};

// A random offset in [0, ProfileNode::kSamplePeriod); advances `rng`.
int64_t DrawSampleOffset(uint64_t& rng);

// One iterator's untimed-call state, embedded in the Iterator; its
// IteratorProfile sets the countdown and reads the counts.
struct CallCounters {
  // Counts down this call; true when it is to be timed (BeginTimedCall).
  bool TimeThisCall() { return --countdown == 0; }
  // An untimed call finished, producing `elements` (0 at the end or on an error).
  void Count(int64_t elements) {
    Increment(calls, 1);
    if (elements > 0) Increment(this->elements, elements);
  }
  // Single writer: a load and a store, no read-modify-write.
  static void Increment(std::atomic<int64_t>& counter, int64_t delta) {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }

  int64_t countdown = 1;  // calls until the next timed one, inclusive; the writer's alone
  std::atomic<int64_t> calls{0}, elements{0};
};

class IteratorProfile {
 public:
  // Registers `counters` with `node`, which `profile` owns (kept alive until
  // this iterator's counters are folded into the node), and sets their
  // countdown from the node's sampling state. REQUIRES: `counters` outlive this.
  IteratorProfile(std::shared_ptr<const Profile> profile, ProfileNode* node, CallCounters* counters);
  // Folds this iterator's counters and sampling state into its node.
  ~IteratorProfile();
  IteratorProfile(const IteratorProfile&) = delete;
  IteratorProfile& operator=(const IteratorProfile&) = delete;

  ProfileNode* node() const { return node_; }

  // A call whose countdown ran out is starting: the weight of its time (1,
  // or kSamplePeriod once sampling); sets the next countdown.
  int64_t BeginTimedCall();
  // That call finished: from start_ns to end_ns (the profile's clock,
  // ProfileNode::NowNs), input_ns of it in its inputs' calls, `elements` of
  // `bytes` bytes, with BeginTimedCall's weight.
  void EndTimedCall(int64_t weight, int64_t start_ns, int64_t end_ns, int64_t input_ns, int64_t elements,
                    int64_t bytes);

  CallTotals Read() const;

 private:
  const std::shared_ptr<const Profile> profile_;
  ProfileNode* const node_;
  CallCounters& counters_;
  // Counted by timed calls only.
  std::atomic<int64_t> bytes_{0}, elapsed_ns_{0}, self_ns_{0};
  // The writer's alone; its countdown lives in counters_ while this runs.
  SamplingState sampling_;
  bool events_full_ = false;  // the node holds all the trace events it keeps
};

}  // namespace sluice

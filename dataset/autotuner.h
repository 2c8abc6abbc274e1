// Autotuner: sets the parallelism of every op of a traversal whose
// num_parallel_calls is kAutotune, within the pipeline's CPU budget and RAM
// budget, and keeps re-setting it as the stages' costs change.
//
// Each such op registers a Tunable: the value it reads before starting more
// work, the value's range, and what the op measures about its own work:
// elements finished, the time its workers spent on them, and their bytes.
// The root iterator counts the traversal's output elements, and the process
// CPU time comes from getrusage (every thread's work, the consumer's too).
//
// A background thread wakes after 10 ms and then at doubling intervals up
// to kMaxAutotunePeriod (so it converges within a second on a steady
// pipeline and re-adapts within about a second of a change). Over the window
// since its last round it computes, for each stage i,
//   r_i = stage elements / output elements   (elements needed per output)
//   s_i = worker time per stage element      (wall time: I/O waits count)
// and C = process CPU time per output element. Of C, the part spent on the
// CPU pool's threads beyond the stages' own work is overhead (idle workers
// spinning, hand-offs) that shrinks as the stages get busier, so C is taken
// no larger than D + sum_i r_i s_i, where D is the CPU time per output
// outside the pool (the consumer's own work, batching, prefetch threads):
// that part the stages can't have. The CPU budget allows at most
// X = budget / C outputs per second, whatever the parallelism: more work at
// once than the budget only queues. A stage at parallelism p
// delivers at most p / (r_i s_i) outputs per second, so the rate the
// pipeline can reach is X' = min(X, min_i max_i / (r_i s_i)), and each stage
// gets p_i = ceil(kAutotuneHeadroom * X' * r_i * s_i) + 1, clamped to its
// range: the one more is for the results its consumer is taking (a parallel
// map's finished group keeps its unit until the last of its outputs is
// taken), so that the rest are all at work meanwhile.
// CPU-bound stages run on the CPU pool (dataset/cpu_pool.h), so a stage
// given more parallelism than there are threads queues work rather than
// oversubscribing the cores; I/O-bound stages (a high s_i at a low C) get
// the parallelism that hides their latency. When the chosen values would
// keep more results buffered than the RAM budget has room for, all are
// scaled down to fit; the RamBudget (dataset/ram_budget.h) enforces the
// limit in any case.
//
// A prefetch buffer with buffer_size = kAutotune registers a buffer-size
// tunable (RegisterBuffer): its value is the buffer's limit in elements, or
// 0 for no buffer at all (the consumer reads the input inline). Its stage
// reports the producer's time per element (RecordWork) and the consumer's
// time between calls (RecordConsumerTime), and each round sets the value to
// PrefetchBufferSize(producer, consumer): a buffer only pays when both sides
// have work to overlap, and then it is sized by the M/M/1/K queue that
// tf.data's model uses for async buffers (reference/tfdata.md §3), within
// the RAM budget.
//
// This replaces tf.data's hill climbing over an M/M/1/K model (reference/
// tfdata.md §3): that model predicts a latency that keeps falling as
// parallelism grows, so it oversubscribes; measuring C and the stage times
// directly gives the answer in one step and knows I/O from CPU.
//
// Decisions are logged at DEBUG level (SLUICE_LOG_LEVEL=DEBUG) and kept in
// Decisions(); the profiler reports each stage's parallelism.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sluice/dataset/ram_budget.h"

namespace sluice {

inline constexpr auto kMinAutotunePeriod = std::chrono::milliseconds(10);
inline constexpr auto kMaxAutotunePeriod = std::chrono::milliseconds(500);
inline constexpr double kAutotuneHeadroom = 1.25;
// Rounds with fewer output elements in their window wait for more.
inline constexpr int64_t kMinWindowElements = 8;

// CPU time of the whole process so far (user + system), seconds.
double ProcessCpuSeconds();

// The smallest overlap of producer and consumer work per element for which
// a prefetch buffer pays: below it, handing elements between two threads
// (a wake-up on a virtual CPU costs tens of microseconds) costs more than
// the overlap saves, and the consumer had better read the input inline.
inline constexpr double kMinPrefetchOverlapSeconds = 20e-6;
// An autotuned buffer is made no larger than brings the chance that the
// consumer finds it empty to within this of an unbounded buffer's.
inline constexpr double kPrefetchStarvationTolerance = 0.01;

// The buffer size (elements) for a prefetch whose producer spends
// `producer_seconds` per element and whose consumer `consumer_seconds`
// between calls: 0 when their overlap, the smaller of the two, is below
// kMinPrefetchOverlapSeconds; else the smallest K in [1, max] whose M/M/1/K
// empty-buffer probability, (1 - rho) / (1 - rho^(K+1)) with rho = consumer
// / producer time, is within kPrefetchStarvationTolerance of the limit as
// K grows (max(0, 1 - rho)).
int64_t PrefetchBufferSize(double producer_seconds, double consumer_seconds, int64_t max);

// One tunable value (a parallelism, or a prefetch buffer's size) and its
// stage's measurements.
class Tunable {
 public:
  enum class Kind { kParallelism, kBufferSize };
  Tunable(std::string name, Kind kind, int64_t min, int64_t max, int64_t initial)
      : name_(std::move(name)), kind_(kind), min_(min), max_(max), value_(initial) {}

  const std::string& name() const { return name_; }
  Kind kind() const { return kind_; }
  int64_t min() const { return min_; }
  int64_t max() const { return max_; }
  int64_t value() const { return value_.load(std::memory_order_relaxed); }
  void set_value(int64_t value) { value_.store(value, std::memory_order_relaxed); }

  // The stage finished `elements` elements of `bytes` bytes in all, which
  // took `busy` of one worker's time.
  void RecordWork(int64_t elements, int64_t bytes, std::chrono::nanoseconds busy) {
    elements_.fetch_add(elements, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
    busy_ns_.fetch_add(busy.count(), std::memory_order_relaxed);
  }
  // A buffer's consumer spent `time` on its own work between two calls.
  void RecordConsumerTime(std::chrono::nanoseconds time) {
    consumer_ns_.fetch_add(time.count(), std::memory_order_relaxed);
  }

 private:
  friend class Autotuner;
  const std::string name_;
  const Kind kind_;
  const int64_t min_, max_;
  std::atomic<int64_t> value_;
  std::atomic<int64_t> elements_{0}, bytes_{0}, busy_ns_{0}, consumer_ns_{0};
};

// What one round measured and chose for one stage.
struct AutotuneDecision {
  std::string name;
  int64_t value = 0;
  double elements_per_output = 0;  // r_i
  double seconds_per_element = 0;  // s_i (a buffer's producer time per element)
  double consumer_seconds = 0;     // a buffer's consumer time per element
};

class Autotuner {
 public:
  struct Options {
    int cpu_budget = 1;
    RamBudget* ram_budget = nullptr;  // required
    // The process's CPU time so far, seconds (tests give a fake one).
    std::function<double()> cpu_seconds = ProcessCpuSeconds;
    // The CPU pool's share of that so far (CpuPool::CpuSeconds). Null: all
    // of it is taken as the pool's (D = 0).
    std::function<double()> pool_cpu_seconds;
    // Tune from a thread of its own; off, only explicit Optimize() calls tune.
    bool background = true;
  };
  explicit Autotuner(Options options);
  ~Autotuner();
  Autotuner(const Autotuner&) = delete;
  Autotuner& operator=(const Autotuner&) = delete;

  // A stage's tunable, named "<op>#<n>" in order of registration; the
  // tuner forgets it when the caller drops it. Starts the tuning thread.
  std::shared_ptr<Tunable> Register(std::string_view op_name, int64_t min, int64_t max, int64_t initial);
  // A prefetch buffer's size in elements, 0..max (0: no buffer); starts at 1.
  std::shared_ptr<Tunable> RegisterBuffer(std::string_view op_name, int64_t max);

  // The root iterator produced `elements` output elements. Counted only
  // once something is tuned, so that an untuned pipeline pays a load, not
  // an atomic add, per element.
  void RecordOutput(int64_t elements) {
    if (tuning_.load(std::memory_order_relaxed)) outputs_.fetch_add(elements, std::memory_order_relaxed);
  }

  // One round over the window since the last one (what the thread runs);
  // false if the window held too few outputs to decide.
  bool Optimize();

  // The last decision per live stage.
  std::vector<AutotuneDecision> Decisions() const;
  int64_t rounds() const { return rounds_.load(std::memory_order_relaxed); }

 private:
  struct Stage {
    std::weak_ptr<Tunable> tunable;
    int64_t elements = 0, bytes = 0, busy_ns = 0, consumer_ns = 0;  // at the last round
    AutotuneDecision decision;
  };
  void Loop();
  double PoolCpuSeconds() const;  // 0 without options_.pool_cpu_seconds
  std::shared_ptr<Tunable> Add(std::string_view op_name, Tunable::Kind kind, int64_t min, int64_t max,
                               int64_t initial);  // REQUIRES: mu_ held

  const Options options_;
  std::atomic<bool> tuning_{false};  // set by the first Register
  std::atomic<int64_t> outputs_{0};
  std::atomic<int64_t> rounds_{0};

  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;                  // guarded by mu_
  std::vector<Stage> stages_;              // guarded by mu_
  int64_t registered_ = 0;                 // guarded by mu_
  int64_t window_outputs_ = 0;             // guarded by mu_; outputs_ at the last round
  double window_cpu_seconds_ = 0;          // guarded by mu_
  double window_pool_cpu_seconds_ = 0;     // guarded by mu_
  std::thread thread_;                     // started by the first Register
};

}  // namespace sluice

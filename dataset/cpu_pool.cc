#include "sluice/dataset/cpu_pool.h"

#include <sched.h>
#include <tbb/global_control.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>

#include "sluice/core/logging.h"

namespace sluice {

void TaskGroup::Add() {
  std::lock_guard<std::mutex> lock(mu_);
  ++pending_;
}

// Notifies under the lock: once Wait() can return (and the owner destroy
// this group) the task no longer touches it.
void TaskGroup::Done() {
  std::lock_guard<std::mutex> lock(mu_);
  if (--pending_ == 0) done_.notify_all();
}

void TaskGroup::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  done_.wait(lock, [this] { return pending_ == 0; });
}

namespace {

double ThreadCpuSeconds(clockid_t clock) {
  timespec now{};
  if (clock_gettime(clock, &now) != 0) return 0;
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

ArenaCpuClock::ArenaCpuClock(tbb::task_arena& arena) : tbb::task_scheduler_observer(arena) {
  arena.initialize();
  observe(true);
}

ArenaCpuClock::~ArenaCpuClock() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    left_.wait_for(lock, kLeaveWait, [this] { return inside_.empty(); });
  }
  observe(false);
}

void ArenaCpuClock::on_scheduler_entry(bool /*is_worker*/) {
  clockid_t clock;
  if (pthread_getcpuclockid(pthread_self(), &clock) != 0) return;
  const double start = ThreadCpuSeconds(clock);
  std::lock_guard<std::mutex> lock(mu_);
  inside_[pthread_self()] = {clock, start};
}

void ArenaCpuClock::on_scheduler_exit(bool /*is_worker*/) {
  std::lock_guard<std::mutex> lock(mu_);
  auto visit = inside_.find(pthread_self());
  if (visit == inside_.end()) return;
  finished_seconds_ += ThreadCpuSeconds(visit->second.clock) - visit->second.start_seconds;
  inside_.erase(visit);
  if (inside_.empty()) left_.notify_all();
}

// A thread inside the arena can't leave it (and end its clock) while mu_ is held.
double ArenaCpuClock::Seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  double seconds = finished_seconds_;
  for (const auto& [thread, visit] : inside_) seconds += ThreadCpuSeconds(visit.clock) - visit.start_seconds;
  return seconds;
}

PoolThreads::~PoolThreads() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
  }
  ready_.notify_all();
  for (std::thread& thread : threads) thread.join();
}

// A new thread when more tasks wait than threads wait for them (a woken
// thread counts as waiting until it takes its task).
void PoolThreads::Run(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(task));
  if (queue_.size() > idle_ && threads_.size() < static_cast<size_t>(max_threads_)) {
    threads_.emplace_back([this] { Work(); });
    clockid_t clock;
    if (pthread_getcpuclockid(threads_.back().native_handle(), &clock) == 0) clocks_.push_back(clock);
  } else {
    ready_.notify_one();
  }
}

// A thread's clock is valid until it is joined, which happens only in the
// destructor.
double PoolThreads::CpuSeconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  double seconds = 0;
  for (clockid_t clock : clocks_) seconds += ThreadCpuSeconds(clock);
  return seconds;
}

void PoolThreads::Work() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    ++idle_;
    ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    --idle_;
    if (queue_.empty()) return;  // stopping, with every task run
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // its captures are released off the lock too
    lock.lock();
  }
}

namespace {

// Set in the child of every fork() after the first CpuPool was made (its
// arena may have started oneTBB's workers, which the child doesn't have).
// The flag is inherited by the child's own children.
std::atomic<bool> forked_after_tbb_started{false};

bool ForkedAfterTbbStarted() {
  [[maybe_unused]] static const int registered =
      pthread_atfork(nullptr, nullptr, [] { forked_after_tbb_started.store(true); });
  return forked_after_tbb_started.load();
}

void WarnOnceAboutForkedPools() {
  static std::once_flag warned;
  std::call_once(warned, [] {
    // Written directly, not through SLUICE_LOG: another thread of the parent
    // may have held the log's lock when it forked, and the child's copy of
    // that lock would never be released.
    static constexpr std::string_view kWarning =
        "sluice: WARNING: this process was forked after oneTBB's worker threads started (e.g. a PyTorch "
        "DataLoader worker forked after a parallel pipeline ran in the parent), and oneTBB can't run tasks "
        "in it: parallel ops here run on plain threads instead. The forkserver and spawn start methods keep "
        "oneTBB.\n";
    [[maybe_unused]] ssize_t written = write(STDERR_FILENO, kWarning.data(), kWarning.size());
  });
}

// oneTBB's worker limit (global_control::max_allowed_parallelism) for every
// pool alive: room for all their threads at once, plus the cores for the
// arenas of other code (an op's ParallelFor runs in the calling thread's
// default arena), so that no pool waits for a worker another arena holds.
// The limit is one process-wide setting, and where several global_control
// objects are alive the smallest wins: one control for all pools, replaced
// (the new one made before the old one goes) as pools come and go, is what
// lets a pool get its threads beside a smaller pool.
class WorkerLimit {
 public:
  static WorkerLimit& Get() {
    static WorkerLimit* const limit = new WorkerLimit();  // never destroyed: pools may outlive statics
    return *limit;
  }

  void AddThreads(int threads) {
    std::lock_guard<std::mutex> lock(mu_);
    if (control_ == nullptr) {
      floor_ = tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism);
    }
    threads_ += threads;
    Apply();
  }
  void RemoveThreads(int threads) {
    std::lock_guard<std::mutex> lock(mu_);
    threads_ -= threads;
    Apply();
  }
  // Starts `arena` while no control is being made or destroyed: oneTBB
  // 2021.8 reads its set of controls without a lock when it starts an arena
  // (market::app_parallelism_limit; a data race under TSan).
  tbb::task_arena& Initialized(tbb::task_arena& arena) {
    std::lock_guard<std::mutex> lock(mu_);
    arena.initialize();
    return arena;
  }

 private:
  // REQUIRES: mu_ held.
  void Apply() {
    if (threads_ == 0) {
      control_.reset();  // back to the process's own limit
      return;
    }
    const size_t value = std::max(floor_, static_cast<size_t>(threads_ + AvailableCores()));
    if (control_ != nullptr && value == value_) return;
    // Made before the old one goes: the smaller of the two rules meanwhile.
    auto replacement = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, value);
    control_ = std::move(replacement);
    value_ = value;
  }

  std::mutex mu_;
  int threads_ = 0;   // guarded by mu_; of the pools alive
  size_t floor_ = 0;  // guarded by mu_; the limit before the first pool: never lowered
  size_t value_ = 0;  // guarded by mu_; control_'s
  std::unique_ptr<tbb::global_control> control_;  // guarded by mu_; null with no pool alive
};

// A pool's threads, counted in WorkerLimit while it lives.
class WorkerShare {
 public:
  explicit WorkerShare(int threads) : threads_(threads) { WorkerLimit::Get().AddThreads(threads_); }
  ~WorkerShare() { WorkerLimit::Get().RemoveThreads(threads_); }
  WorkerShare(const WorkerShare&) = delete;
  WorkerShare& operator=(const WorkerShare&) = delete;

 private:
  const int threads_;
};

}  // namespace

// The pool's oneTBB arena and its clock.
struct CpuPool::Arena {
  explicit Arena(int threads)
      : workers(threads),
        arena(threads, /*reserved_for_masters=*/0, tbb::task_arena::priority::high),
        clock(WorkerLimit::Get().Initialized(arena)) {}
  // Lets the arena's idle workers go, then waits for them (ArenaCpuClock).
  ~Arena() { arena.terminate(); }

  WorkerShare workers;  // before the arena starts, released after it ends
  // The arena reserves no slot for a calling thread: every task runs on a
  // worker. Its high priority serves it before the default arenas of other
  // code where workers are short (under a user's smaller global_control).
  tbb::task_arena arena;
  ArenaCpuClock clock;  // after arena, which it observes
};

CpuPool::CpuPool(int threads) : threads_(threads) {
  if (ForkedAfterTbbStarted()) {
    forked_ = std::make_unique<PoolThreads>(threads);
  } else {
    arena_ = std::make_unique<Arena>(threads);
  }
}

CpuPool::~CpuPool() = default;

double CpuPool::CpuSeconds() const { return arena_ ? arena_->clock.Seconds() : forked_->CpuSeconds(); }

void CpuPool::Run(TaskGroup& group, std::function<void()> task) {
  group.Add();
  auto counted = [&group, task = std::move(task)] {
    task();
    group.Done();
  };
  if (arena_) {
    arena_->arena.enqueue(std::move(counted));
    return;
  }
  WarnOnceAboutForkedPools();
  forked_->Run(std::move(counted));
}

int AvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace sluice

#include "dataset/cpu_pool.h"

#include <sched.h>

#include <algorithm>
#include <thread>

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

CpuPool::CpuPool(int threads)
    : threads_(threads),
      workers_(tbb::global_control::max_allowed_parallelism,
               std::max<size_t>(static_cast<size_t>(threads) + 1,
                                tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))),
      arena_(threads, /*reserved_for_masters=*/0),
      clock_(arena_) {}

CpuPool::~CpuPool() { arena_.terminate(); }

void CpuPool::Run(TaskGroup& group, std::function<void()> task) {
  group.Add();
  arena_.enqueue([&group, task = std::move(task)] {
    task();
    group.Done();
  });
}

int AvailableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace sluice

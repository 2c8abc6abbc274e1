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

CpuPool::CpuPool(int threads)
    : threads_(threads),
      workers_(tbb::global_control::max_allowed_parallelism,
               std::max<size_t>(static_cast<size_t>(threads) + 1,
                                tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))),
      arena_(threads, /*reserved_for_masters=*/0) {}

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

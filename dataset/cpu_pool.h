// CpuPool: the threads that run a traversal's CPU-bound element work (map
// functions, batch stacking), one oneTBB task_arena sized to the pipeline's
// CPU budget. Work queued beyond that many threads waits its turn, so a
// pipeline never runs more CPU-bound work at once than its budget, however
// high its ops' parallelism is set. Blocking I/O never runs here: ops that
// wait on files or sleep (interleave's workers, prefetch) have threads of
// their own.
//
// Each pool gets its threads however many pools and other oneTBB users the
// process has: while pools are alive, oneTBB's process-wide worker limit
// (global_control::max_allowed_parallelism, where the smallest alive
// control wins) is one control for all of them, with room for every pool's
// threads plus the cores for other code's arenas (an op's ParallelFor runs
// in its calling thread's default arena); and a pool's arena has high
// priority, so it is served first where workers are short (under a smaller
// limit a user set).
//
// In a process forked after oneTBB's workers may have started (the child of
// any fork() after the first CpuPool was made, as PyTorch's DataLoader
// workers are by default), the workers don't exist but oneTBB's scheduler
// state says they do, so tasks enqueued in an arena would never run. There a
// CpuPool runs its tasks on threads of its own (PoolThreads) instead.
//
// TaskGroup counts the tasks one owner (an iterator) has queued, so that the
// owner can wait for all of them before it is destroyed.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <pthread.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

namespace sluice {

class TaskGroup {
 public:
  TaskGroup() = default;
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;
  ~TaskGroup() { Wait(); }

  // Blocks until every task run through this group has returned.
  void Wait();

 private:
  friend class CpuPool;
  void Add();
  void Done();

  std::mutex mu_;
  std::condition_variable done_;
  int64_t pending_ = 0;  // guarded by mu_
};

// The CPU time threads spend inside one task arena: their tasks' work and
// the spinning of workers that wait there for more. Each thread's own CPU
// clock is read when it enters and leaves the arena (and for a thread inside
// it, when asked).
class ArenaCpuClock : public tbb::task_scheduler_observer {
 public:
  explicit ArenaCpuClock(tbb::task_arena& arena);
  // Waits (up to kLeaveWait) for the threads inside the arena to leave it
  // before it stops observing: oneTBB frees an observer's record only when
  // the last thread that saw it leaves, so a worker still inside when the
  // process exits would leak it.
  ~ArenaCpuClock() override;
  ArenaCpuClock(const ArenaCpuClock&) = delete;
  ArenaCpuClock& operator=(const ArenaCpuClock&) = delete;

  // Since construction, over all threads.
  double Seconds() const;

 private:
  void on_scheduler_entry(bool is_worker) override;
  void on_scheduler_exit(bool is_worker) override;

  struct Visit {
    clockid_t clock;
    double start_seconds;  // the thread's CPU time when it entered
  };
  static constexpr std::chrono::seconds kLeaveWait{2};

  mutable std::mutex mu_;
  std::condition_variable left_;                 // signalled when inside_ empties
  std::unordered_map<pthread_t, Visit> inside_;  // guarded by mu_
  double finished_seconds_ = 0;                  // guarded by mu_; of visits that ended
};

// Up to `threads` plain threads taking tasks from one FIFO queue: CpuPool's
// executor in a forked child, where oneTBB can't run them. Threads start as
// tasks arrive (never more than are waiting for one) and sleep when idle.
class PoolThreads {
 public:
  // REQUIRES: threads >= 1.
  explicit PoolThreads(int threads) : max_threads_(threads) {}
  // Lets the threads finish the queued tasks, then joins them.
  ~PoolThreads();
  PoolThreads(const PoolThreads&) = delete;
  PoolThreads& operator=(const PoolThreads&) = delete;

  // Queues `task`; never runs it on the calling thread, so the caller may
  // hold locks that the task takes.
  void Run(std::function<void()> task);
  // The CPU time of the threads (each thread's own clock), seconds.
  double CpuSeconds() const;

 private:
  void Work();

  const int max_threads_;
  mutable std::mutex mu_;
  std::condition_variable ready_;            // a task was queued, or stopping_
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  std::vector<std::thread> threads_;         // guarded by mu_
  std::vector<clockid_t> clocks_;            // guarded by mu_; one per thread
  size_t idle_ = 0;                          // guarded by mu_; threads waiting for a task
  bool stopping_ = false;                    // guarded by mu_
};

class CpuPool {
 public:
  // REQUIRES: threads >= 1.
  explicit CpuPool(int threads);
  ~CpuPool();
  CpuPool(const CpuPool&) = delete;
  CpuPool& operator=(const CpuPool&) = delete;

  int threads() const { return threads_; }
  // CPU time of the pool's threads so far (ArenaCpuClock, or the
  // PoolThreads' clocks in a forked child), seconds.
  double CpuSeconds() const;

  // Queues `task` on the pool; `group` counts it until it returns. The task
  // must not block on other tasks of the pool. Never runs `task` on the
  // calling thread.
  void Run(TaskGroup& group, std::function<void()> task);

 private:
  struct Arena;

  const int threads_;
  std::unique_ptr<Arena> arena_;         // oneTBB's; null in a forked child
  std::unique_ptr<PoolThreads> forked_;  // in a forked child; null otherwise
};

// The number of cores this process may run on (its CPU affinity mask).
int AvailableCores();

}  // namespace sluice

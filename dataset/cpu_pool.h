// CpuPool: the threads that run a traversal's CPU-bound element work (map
// functions, batch stacking), one oneTBB task_arena sized to the pipeline's
// CPU budget. Work queued beyond that many threads waits its turn, so a
// pipeline never runs more CPU-bound work at once than its budget, however
// high its ops' parallelism is set. Blocking I/O never runs here: ops that
// wait on files or sleep (interleave's workers, prefetch) have threads of
// their own.
//
// TaskGroup counts the tasks one owner (an iterator) has queued, so that the
// owner can wait for all of them before it is destroyed.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <pthread.h>
#include <tbb/global_control.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <ctime>
#include <functional>
#include <mutex>
#include <unordered_map>

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

class CpuPool {
 public:
  // REQUIRES: threads >= 1.
  explicit CpuPool(int threads);
  // Lets the arena's idle workers go, then waits for them (ArenaCpuClock).
  ~CpuPool();
  CpuPool(const CpuPool&) = delete;
  CpuPool& operator=(const CpuPool&) = delete;

  int threads() const { return threads_; }
  // CPU time of the pool's threads so far (ArenaCpuClock), seconds.
  double CpuSeconds() const { return clock_.Seconds(); }

  // Queues `task` on the pool; `group` counts it until it returns. The task
  // must not block on other tasks of the pool.
  void Run(TaskGroup& group, std::function<void()> task);

 private:
  const int threads_;
  // oneTBB starts at most (cores - 1) workers unless told otherwise; this
  // lets it start one per thread of the budget (the arena reserves no slot
  // for a calling thread: every task runs on a worker).
  tbb::global_control workers_;
  tbb::task_arena arena_;
  ArenaCpuClock clock_;  // after arena_, which it observes
};

// The number of cores this process may run on (its CPU affinity mask).
int AvailableCores();

}  // namespace sluice

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

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

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

class CpuPool {
 public:
  // REQUIRES: threads >= 1.
  explicit CpuPool(int threads);
  CpuPool(const CpuPool&) = delete;
  CpuPool& operator=(const CpuPool&) = delete;

  int threads() const { return threads_; }

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
};

// The number of cores this process may run on (its CPU affinity mask).
int AvailableCores();

}  // namespace sluice

#include "dataset/cpu_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <thread>

namespace sluice {
namespace {

// Runs `tasks` tasks that each hold a thread for a while, recording how
// many ran at once.
int PeakConcurrency(CpuPool& pool, int tasks) {
  std::atomic<int> running{0}, peak{0};
  TaskGroup group;
  for (int i = 0; i < tasks; ++i) {
    pool.Run(group, [&] {
      const int now = ++running;
      int seen = peak.load();
      while (now > seen && !peak.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --running;
    });
  }
  group.Wait();
  return peak.load();
}

// The pool runs as many tasks at once as its budget, even above the core
// count, and never more.
TEST(CpuPoolTest, RunsUpToItsBudgetAtOnce) {
  CpuPool pool(4);
  EXPECT_EQ(PeakConcurrency(pool, 16), 4);
  CpuPool one(1);
  EXPECT_EQ(PeakConcurrency(one, 6), 1);
}

TEST(CpuPoolTest, WaitReturnsOnlyWhenEveryTaskHasRun) {
  CpuPool pool(2);
  std::atomic<int> done{0};
  TaskGroup group;
  for (int i = 0; i < 50; ++i) {
    pool.Run(group, [&] {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      ++done;
    });
  }
  group.Wait();
  EXPECT_EQ(done.load(), 50);
  group.Wait();  // nothing pending: returns at once
}

// The pool's clock counts its tasks' CPU time, and not the CPU time of the
// threads that queue them.
TEST(CpuPoolTest, CpuSecondsCountsTheTasksWork) {
  CpuPool pool(2);
  const double before = pool.CpuSeconds();
  TaskGroup group;
  for (int i = 0; i < 2; ++i) {
    pool.Run(group, [] {
      // 60 ms of this thread's CPU time, however loaded the machine is.
      auto cpu_ns = [] {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
      };
      const int64_t start = cpu_ns();
      while (cpu_ns() - start < 60'000'000) {
      }
    });
  }
  group.Wait();
  const double spent = pool.CpuSeconds() - before;
  EXPECT_GT(spent, 0.1);
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  while (std::chrono::steady_clock::now() < end) {
  }
  // This thread's spinning isn't the pool's (idle workers may still spin
  // for a little while before they sleep).
  EXPECT_LT(pool.CpuSeconds() - before, spent + 0.05);
}

TEST(CpuPoolTest, AvailableCoresIsPositive) { EXPECT_GE(AvailableCores(), 1); }

}  // namespace
}  // namespace sluice

#include "sluice/dataset/cpu_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <latch>
#include <string>
#include <thread>

#include "sluice/dataset/pipeline.h"

#if defined(__SANITIZE_THREAD__)
#define SLUICE_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SLUICE_TEST_UNDER_TSAN 1
#endif
#endif

namespace sluice {
namespace {

// Tasks that each hold a thread for a while, recording how many ran at once.
struct Overlap {
  void Task() {
    const int now = ++running;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --running;
    ++done;
  }

  std::atomic<int> running{0}, peak{0}, done{0};
};

// Runs `tasks` Overlap tasks on `pool`; how many ran at once.
int PeakConcurrency(CpuPool& pool, int tasks) {
  Overlap overlap;
  TaskGroup group;
  for (int i = 0; i < tasks; ++i) pool.Run(group, [&] { overlap.Task(); });
  group.Wait();
  return overlap.peak.load();
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

// Spins for 60 ms of this thread's CPU time, however loaded the machine is.
void SpinCpu() {
  auto cpu_ns = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  };
  const int64_t start = cpu_ns();
  while (cpu_ns() - start < 60'000'000) {
  }
}

// The pool's clock counts its tasks' CPU time, and not the CPU time of the
// threads that queue them.
TEST(CpuPoolTest, CpuSecondsCountsTheTasksWork) {
  CpuPool pool(2);
  const double before = pool.CpuSeconds();
  TaskGroup group;
  for (int i = 0; i < 2; ++i) {
    pool.Run(group, SpinCpu);
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

// The threads a forked child's pool runs on (also tested here, in a process
// that TSan can check). They run as many tasks at once as their budget, and
// their destructor lets every queued task run.
TEST(PoolThreadsTest, RunsUpToItsBudgetAtOnceAndEveryQueuedTask) {
  Overlap overlap;
  {
    PoolThreads threads(3);
    for (int i = 0; i < 12; ++i) threads.Run([&] { overlap.Task(); });
  }
  EXPECT_EQ(overlap.peak.load(), 3);
  EXPECT_EQ(overlap.done.load(), 12);
}

TEST(PoolThreadsTest, CpuSecondsCountsTheTasksWork) {
  PoolThreads threads(2);
  EXPECT_EQ(threads.CpuSeconds(), 0);  // no thread before the first task
  std::latch done(2);
  for (int i = 0; i < 2; ++i) {
    threads.Run([&] {
      SpinCpu();
      done.count_down();
    });
  }
  done.wait();
  EXPECT_GT(threads.CpuSeconds(), 0.1);
}

// range(n), doubled by a parallel map and stacked by a parallel batch of 4:
// "" when every batch holds what it should, else what went wrong.
std::string CheckParallelMapAndBatch(int64_t n) {
  auto doubled = [](Element e) -> Result<Element> {
    return Element{Tensor::Scalar<int64_t>(e[0].scalar<int64_t>() * 2)};
  };
  Result<DatasetPtr> dataset = Pipeline::Range(n)
                                   .Map(doubled, {}, {.num_parallel_calls = 4})
                                   .Batch({.batch_size = 4, .num_parallel_calls = 2})
                                   .Build();
  if (!dataset.ok()) return dataset.status().ToString();
  auto it = (*dataset)->MakeIterator();
  int64_t expected = 0;
  while (true) {
    Result<std::optional<Element>> batch = it->GetNext();
    if (!batch.ok()) return batch.status().ToString();
    if (!batch->has_value()) break;
    const Tensor& values = (**batch)[0];
    for (int64_t i = 0; i < values.NumElements(); ++i, ++expected) {
      if (values.data<int64_t>()[i] != expected * 2) return StrCat("element ", expected, ": ", values.DebugString());
    }
  }
  return expected == n ? "" : StrCat(expected, " elements instead of ", n);
}

// What a forked child checks: parallel ops, the pool's budget and its clock.
std::string CheckInForkedChild() {
  if (std::string error = CheckParallelMapAndBatch(37); !error.empty()) return error;
  CpuPool pool(4);
  if (const int peak = PeakConcurrency(pool, 16); peak != 4) return StrCat("peak concurrency ", peak);
  const double before = pool.CpuSeconds();
  TaskGroup group;
  pool.Run(group, SpinCpu);
  group.Wait();
  if (const double spent = pool.CpuSeconds() - before; spent < 0.05) return StrCat("CPU seconds ", spent);
  return "";
}

// A process forked after the pool's oneTBB workers ran (as PyTorch's
// DataLoader forks its workers) runs parallel ops on plain threads instead
// of hanging on oneTBB's workers, which don't exist in the child.
TEST(CpuPoolTest, ParallelOpsWorkInAChildForkedAfterTheyRan) {
#ifdef SLUICE_TEST_UNDER_TSAN
  GTEST_SKIP() << "ThreadSanitizer doesn't support starting threads in a child forked from a "
                  "multithreaded process (it ends such a child: die_after_fork)";
#endif
  ASSERT_EQ(CheckParallelMapAndBatch(37), "");
  fflush(nullptr);  // nothing buffered is written twice
  const pid_t child = fork();
  ASSERT_GE(child, 0) << "fork failed";
  if (child == 0) {
    const std::string error = CheckInForkedChild();
    if (!error.empty()) fprintf(stderr, "in the forked child: %s\n", error.c_str());
    _exit(error.empty() ? 0 : 1);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  pid_t waited = 0;
  while ((waited = waitpid(child, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (waited == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the forked child's parallel ops didn't finish within 60 s";
  }
  ASSERT_EQ(waited, child);
  ASSERT_TRUE(WIFEXITED(status)) << "the forked child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the forked child's checks failed (its stderr says why)";
}

TEST(CpuPoolTest, AvailableCoresIsPositive) { EXPECT_GE(AvailableCores(), 1); }

}  // namespace
}  // namespace sluice

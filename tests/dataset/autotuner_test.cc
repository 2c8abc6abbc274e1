#include "sluice/dataset/autotuner.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

using std::chrono::microseconds;

class AutotunerTest : public ::testing::Test {
 protected:
  // Runs one round after the stage did `elements` elements at `per_element`
  // each while the root produced `outputs` using `cpu` of CPU time.
  void Round(Tunable& stage, int64_t elements, microseconds per_element, int64_t outputs, double cpu) {
    stage.RecordWork(elements, elements * 1000, per_element * elements);
    tuner_.RecordOutput(outputs);
    cpu_ += cpu;
    ASSERT_TRUE(tuner_.Optimize());
  }

  // A tuner for 4 cores on the fake CPU clock cpu_, tuned by hand.
  double cpu_ = 0;
  RamBudget ram_{int64_t{1} << 30};
  Autotuner tuner_{{.cpu_budget = 4, .ram_budget = &ram_, .cpu_seconds = [this] { return cpu_; }, .background = false}};
};

// A CPU-bound map (50 us per element, all of the CPU time): the budget of
// 4 cores allows 4 / 50us = 80k elements/s, which needs 4 calls at once;
// with headroom, 5, and one more for the results the consumer is taking.
// Not the maximum: more would only queue.
TEST_F(AutotunerTest, CpuBoundStageGetsTheBudgetWithHeadroom) {
  auto map = tuner_.Register("map", 1, 64, 1);
  Round(*map, 1000, microseconds(50), 1000, 1000 * 50e-6);
  EXPECT_EQ(map->value(), 6);
  ASSERT_EQ(tuner_.Decisions().size(), 1u);
  EXPECT_EQ(tuner_.Decisions()[0].name, "map#0");
  EXPECT_NEAR(tuner_.Decisions()[0].seconds_per_element, 50e-6, 1e-9);
}

// An I/O-bound stage (2 ms per element, almost no CPU): only its maximum
// limits it.
TEST_F(AutotunerTest, IoBoundStageGetsItsMaximum) {
  auto interleave = tuner_.Register("interleave", 1, 16, 2);
  Round(*interleave, 100, microseconds(2000), 100, 100 * 5e-6);
  EXPECT_EQ(interleave->value(), 16);
}

// Elements per output (a map before batch(10)) scale the parallelism: the
// map does 10 elements per output.
TEST_F(AutotunerTest, RatioToTheOutputScalesTheStage) {
  auto map = tuner_.Register("map", 1, 64, 1);
  Round(*map, 1000, microseconds(10), 100, 100 * 80e-6);
  // CPU per output 80 us -> 50k outputs/s; the map needs 10 x 10 us per
  // output -> 5 at once, with headroom ceil(6.25) = 7, + 1.
  EXPECT_EQ(map->value(), 8);
}

// A capped stage lowers the rate the others need to keep up with.
TEST_F(AutotunerTest, CappedStageLimitsTheOthers) {
  auto io = tuner_.Register("interleave", 1, 4, 1);
  auto map = tuner_.Register("map", 1, 64, 1);
  tuner_.RecordOutput(100);
  io->RecordWork(100, 0, microseconds(1000) * 100);  // 4 at once -> 4k outputs/s at most
  map->RecordWork(100, 0, microseconds(100) * 100);
  cpu_ += 100 * 110e-6;
  ASSERT_TRUE(tuner_.Optimize());
  EXPECT_EQ(io->value(), 4);
  EXPECT_EQ(map->value(), 2);  // ceil(1.25 * 4000 * 100 us) + 1
}

// CPU time beyond the stages' own work (hand-offs, idle workers) doesn't
// hold the parallelism down: it shrinks as the stages get busier.
TEST_F(AutotunerTest, OverheadBeyondTheStagesWorkIsNotABudgetLimit) {
  auto map = tuner_.Register("map", 1, 64, 1);
  Round(*map, 1000, microseconds(40), 1000, 1000 * 100e-6);  // 60 us per element of overhead
  EXPECT_EQ(map->value(), 6);  // as if C were 40 us: ceil(1.25 * 4 cores) + 1
}

// CPU time outside the CPU pool (the consumer's batching, a prefetch
// thread) is work the stage's parallelism can't take over: the stage gets
// the share of the budget that is left, while the pool's own overhead still
// doesn't count against it.
TEST_F(AutotunerTest, CpuOutsideThePoolIsLeftToItsThreads) {
  double pool_cpu = 0;
  Autotuner tuner({.cpu_budget = 4,
                   .ram_budget = &ram_,
                   .cpu_seconds = [this] { return cpu_; },
                   .pool_cpu_seconds = [&pool_cpu] { return pool_cpu; },
                   .background = false});
  auto map = tuner.Register("map", 1, 64, 1);
  map->RecordWork(1000, 0, microseconds(40) * 1000);
  tuner.RecordOutput(1000);
  cpu_ += 1000 * 100e-6;      // C = 100 us per output
  pool_cpu += 1000 * 60e-6;   // 40 us of the map's work and 20 us of overhead in the pool: D = 40 us
  ASSERT_TRUE(tuner.Optimize());
  EXPECT_EQ(map->value(), 4);  // C taken as D + 40 us: ceil(1.25 * 4 / 80 us * 40 us) + 1 = ceil(2.5) + 1

  // All the CPU time in the pool: as without a pool clock, the overhead is no limit.
  map->RecordWork(1000, 0, microseconds(40) * 1000);
  tuner.RecordOutput(1000);
  cpu_ += 1000 * 100e-6;
  pool_cpu += 1000 * 100e-6;
  ASSERT_TRUE(tuner.Optimize());
  EXPECT_EQ(map->value(), 6);
}

// When a stage's cost changes, the next rounds follow it.
TEST_F(AutotunerTest, ReadaptsWhenCostChanges) {
  auto io = tuner_.Register("io", 1, 64, 1);
  Round(*io, 100, microseconds(1000), 100, 100 * 250e-6);  // CPU 250 us per output -> 16k/s
  EXPECT_EQ(io->value(), 21);                               // ceil(1.25 * 16000 * 1 ms) + 1
  Round(*io, 100, microseconds(2000), 100, 100 * 250e-6);  // latency doubles
  EXPECT_EQ(io->value(), 41);
}

// Values that would hold more than the RAM budget are scaled down to fit.
TEST_F(AutotunerTest, RamBudgetScalesValuesDown) {
  RamBudget small(10'000);
  Autotuner tuner({.cpu_budget = 4, .ram_budget = &small, .cpu_seconds = [this] { return cpu_; }, .background = false});
  auto io = tuner.Register("io", 1, 64, 1);
  io->RecordWork(100, 100 * 1000, microseconds(2000) * 100);  // 1000-byte elements
  tuner.RecordOutput(100);
  cpu_ += 100 * 1e-6;
  ASSERT_TRUE(tuner.Optimize());
  EXPECT_EQ(io->value(), 10);  // 64 wanted, 10 x 1000 bytes fit
}

TEST_F(AutotunerTest, TooFewOutputsWaitForMore) {
  auto map = tuner_.Register("map", 1, 8, 3);
  tuner_.RecordOutput(kMinWindowElements - 1);
  cpu_ += 1.0;
  EXPECT_FALSE(tuner_.Optimize());
  EXPECT_EQ(map->value(), 3);
  EXPECT_EQ(tuner_.rounds(), 0);
}

TEST_F(AutotunerTest, ForgetsDroppedStages) {
  auto map = tuner_.Register("map", 1, 8, 3);
  auto other = tuner_.Register("map", 1, 8, 3);
  EXPECT_EQ(other->name(), "map#1");
  map.reset();
  tuner_.RecordOutput(100);
  other->RecordWork(100, 0, microseconds(10) * 100);
  cpu_ += 1.0;
  ASSERT_TRUE(tuner_.Optimize());
  ASSERT_EQ(tuner_.Decisions().size(), 1u);
  EXPECT_EQ(tuner_.Decisions()[0].name, "map#1");
}

// The buffer size model: no buffer without work on both sides to overlap;
// else the smallest M/M/1/K buffer within 1% of an unbounded one's
// starvation: rho = consumer / producer time.
TEST(PrefetchBufferSizeTest, FollowsTheQueueModel) {
  EXPECT_EQ(PrefetchBufferSize(1e-3, 1e-6, 1024), 0);   // the consumer has no work of its own
  EXPECT_EQ(PrefetchBufferSize(1e-6, 1e-3, 1024), 0);   // nor has the producer
  EXPECT_EQ(PrefetchBufferSize(0.5e-3, 1e-3, 1024), 6);  // rho 2: 1 / (2^(K+1) - 1) <= 1%
  EXPECT_EQ(PrefetchBufferSize(1e-3, 1e-3, 1024), 99);   // rho 1: 1 / (K + 1) <= 1%
  EXPECT_EQ(PrefetchBufferSize(1e-3, 0.5e-3, 1024), 5);  // rho 1/2: within 1% of the 50% floor
  EXPECT_EQ(PrefetchBufferSize(1e-3, 1e-3, 16), 16);     // capped
}

// A prefetch buffer's tunable is sized by that model and stays out of the
// parallel stages' sums (its producer time is its whole input's).
TEST_F(AutotunerTest, PrefetchBufferIsSizedApartFromTheStages) {
  auto map = tuner_.Register("map", 1, 64, 1);
  auto prefetch = tuner_.RegisterBuffer("prefetch", 1024);
  EXPECT_EQ(prefetch->kind(), Tunable::Kind::kBufferSize);
  EXPECT_EQ(prefetch->value(), 1);
  // 100 outputs: the map at 40 us each (all of the CPU time), the buffer's
  // producer at 500 us each and its consumer at `consumer` between calls.
  auto round = [&](microseconds consumer) {
    map->RecordWork(100, 0, microseconds(40) * 100);
    prefetch->RecordWork(100, 100 * 1000, microseconds(500) * 100);
    prefetch->RecordConsumerTime(consumer * 100);
    tuner_.RecordOutput(100);
    cpu_ += 100 * 40e-6;
    ASSERT_TRUE(tuner_.Optimize());
  };
  round(microseconds(1000));
  EXPECT_EQ(map->value(), 6);  // ceil(1.25 * 4 cores) + 1, as without the buffer
  EXPECT_EQ(prefetch->value(), 6);
  round(microseconds(1));  // the consumer stops working between calls: the buffer goes
  EXPECT_EQ(prefetch->value(), 0);
}

// A round whose window holds no timed consumer call (the prefetch times
// one in many) leaves the buffer as it is, and the next round measures
// the whole window since the last decision.
TEST_F(AutotunerTest, BufferWithoutAConsumerSampleKeepsItsValue) {
  auto prefetch = tuner_.RegisterBuffer("prefetch", 1024);
  prefetch->RecordWork(100, 100 * 1000, microseconds(1000) * 100);
  tuner_.RecordOutput(100);
  cpu_ += 100 * 1e-6;
  ASSERT_TRUE(tuner_.Optimize());
  EXPECT_EQ(prefetch->value(), 1);  // as registered, not 0
  prefetch->RecordConsumerTime(microseconds(1000) * 100);
  tuner_.RecordOutput(100);
  ASSERT_TRUE(tuner_.Optimize());
  EXPECT_EQ(prefetch->value(), 99);  // both sides at 1 ms (rho 1) over the two rounds' window
}

// A buffer holds no more than the RAM budget has room for.
TEST_F(AutotunerTest, PrefetchBufferFitsTheRamBudget) {
  RamBudget small(10'000);
  Autotuner tuner({.cpu_budget = 4, .ram_budget = &small, .cpu_seconds = [this] { return cpu_; }, .background = false});
  auto prefetch = tuner.RegisterBuffer("prefetch", 1024);
  prefetch->RecordWork(100, 100 * 1000, microseconds(1000) * 100);  // 1000-byte elements, rho 1
  prefetch->RecordConsumerTime(microseconds(1000) * 100);
  tuner.RecordOutput(100);
  cpu_ += 100 * 1e-6;
  ASSERT_TRUE(tuner.Optimize());
  EXPECT_EQ(prefetch->value(), 10);  // 99 wanted, 10 x 1000 bytes fit
}

}  // namespace
}  // namespace sluice

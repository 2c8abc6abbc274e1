#include "sluice/dataset/ram_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace sluice {
namespace {

TEST(RamBudgetTest, CountsUseAndPeak) {
  RamBudget budget(1000);
  budget.Add(300);
  budget.Add(500);
  budget.Release(600);
  budget.Adjust(100);
  budget.Adjust(-50);
  EXPECT_EQ(budget.used(), 250);
  EXPECT_EQ(budget.peak(), 800);
  EXPECT_TRUE(budget.Fits(750));
  EXPECT_FALSE(budget.Fits(751));
}

// A producer waits until a release makes room, and no longer.
TEST(RamBudgetTest, ReserveThrottlesUntilARelease) {
  RamBudget budget(1000);
  budget.Add(900);
  std::atomic<bool> got_room{false};
  std::thread producer([&] {
    budget.Reserve(200, [] { return false; });
    got_room = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got_room.load());
  budget.Release(100);
  producer.join();
  EXPECT_TRUE(got_room.load());
  EXPECT_EQ(budget.used(), 1000);
  EXPECT_EQ(budget.throttles(), 1);
}

// Producers racing for room for one get it one at a time: reservations are
// atomic, so the budget is never exceeded.
TEST(RamBudgetTest, RacingReservationsNeverExceedTheLimit) {
  RamBudget budget(1000);
  std::vector<std::thread> producers;
  for (int t = 0; t < 4; ++t) {
    producers.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        budget.Reserve(300, [] { return false; });
        budget.Release(300);
      }
    });
  }
  for (std::thread& producer : producers) producer.join();
  EXPECT_LE(budget.peak(), 900);
  EXPECT_EQ(budget.used(), 0);
}

// A producer whose consumer waits on it with nothing buffered proceeds,
// so a pipeline can't deadlock on its budget, but uncharged: the budget is
// never exceeded.
TEST(RamBudgetTest, ProceedEndsTheWaitWithoutCharging) {
  RamBudget budget(100);
  budget.Add(100);
  std::atomic<bool> consumer_waits{false};
  std::atomic<bool> charged{true};
  std::thread producer([&] { charged = budget.Reserve(50, [&] { return consumer_waits.load(); }); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  consumer_waits = true;
  producer.join();
  EXPECT_FALSE(charged.load());
  EXPECT_EQ(budget.used(), 100);
  EXPECT_EQ(budget.peak(), 100);
}

// A reservation settles to the element's true size: the excess goes back,
// and a shortfall is added only where it fits.
TEST(RamBudgetTest, SettleCorrectsAReservationWithinTheLimit) {
  RamBudget budget(1000);
  ASSERT_TRUE(budget.Reserve(400, [] { return false; }));
  EXPECT_EQ(budget.Settle(400, 300), 300);
  EXPECT_EQ(budget.used(), 300);
  EXPECT_EQ(budget.Settle(300, 900), 900);  // 600 more fit exactly
  EXPECT_EQ(budget.used(), 900);
  EXPECT_EQ(budget.Settle(100, 300), 100);  // 200 more don't: the charge stays
  EXPECT_EQ(budget.used(), 900);
  EXPECT_EQ(budget.peak(), 900);
}

TEST(RamBudgetTest, DefaultIsHalfOfSomethingPositive) { EXPECT_GT(DefaultRamBudget(), 0); }

}  // namespace
}  // namespace sluice

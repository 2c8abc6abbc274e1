#include "sluice/model/learning_rate_schedule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace sluice {
namespace {

TEST(LearningRateScheduleTest, Constant) { EXPECT_DOUBLE_EQ(ConstantLearningRate(0.1)(1000), 0.1); }

TEST(LearningRateScheduleTest, StepDecay) {
  StepDecay schedule(1.0, /*step_size=*/10, /*gamma=*/0.5);
  EXPECT_DOUBLE_EQ(schedule(0), 1.0);
  EXPECT_DOUBLE_EQ(schedule(9), 1.0);
  EXPECT_DOUBLE_EQ(schedule(10), 0.5);
  EXPECT_DOUBLE_EQ(schedule(25), 0.25);
}

TEST(LearningRateScheduleTest, CosineDecayLikeKeras) {
  CosineDecay schedule(1.0, /*decay_steps=*/100, /*alpha=*/0.1);
  EXPECT_DOUBLE_EQ(schedule(0), 1.0);
  EXPECT_NEAR(schedule(50), 0.9 * 0.5 + 0.1, 1e-12);
  EXPECT_NEAR(schedule(25), 0.9 * 0.5 * (1 + std::cos(std::numbers::pi / 4)) + 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(schedule(100), 0.1);
  EXPECT_DOUBLE_EQ(schedule(1000), 0.1);
}

}  // namespace
}  // namespace sluice

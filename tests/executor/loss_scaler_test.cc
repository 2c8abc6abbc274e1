#include "sluice/executor/loss_scaler.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(LossScalerTest, OverflowSkipsTheStepAndHalvesTheScale) {
  LossScaler scaler({.initial_scale = 1024, .growth_interval = 3});
  EXPECT_FALSE(scaler.Update(/*gradients_finite=*/false));
  EXPECT_EQ(scaler.scale(), 512);
  EXPECT_EQ(scaler.skipped_steps(), 1);
  EXPECT_FALSE(scaler.Update(false));
  EXPECT_EQ(scaler.scale(), 256);
  EXPECT_EQ(scaler.skipped_steps(), 2);
}

TEST(LossScalerTest, DoublesAfterARunOfGoodSteps) {
  LossScaler scaler({.initial_scale = 1024, .growth_interval = 3});
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_EQ(scaler.scale(), 1024);
  EXPECT_EQ(scaler.good_steps_in_a_row(), 2);
  EXPECT_TRUE(scaler.Update(true));
  EXPECT_EQ(scaler.scale(), 2048);
  EXPECT_EQ(scaler.good_steps_in_a_row(), 0) << "the run starts again after growing";
}

TEST(LossScalerTest, AnOverflowRestartsTheRun) {
  LossScaler scaler({.initial_scale = 1024, .growth_interval = 3});
  scaler.Update(true);
  scaler.Update(true);
  scaler.Update(false);  // 512, run reset
  scaler.Update(true);
  scaler.Update(true);
  EXPECT_EQ(scaler.scale(), 512);
  scaler.Update(true);
  EXPECT_EQ(scaler.scale(), 1024);
}

TEST(LossScalerTest, StaysWithinItsBounds) {
  LossScaler scaler({.initial_scale = 4, .growth_interval = 1, .min_scale = 2, .max_scale = 16});
  for (int i = 0; i < 10; ++i) scaler.Update(true);
  EXPECT_EQ(scaler.scale(), 16);
  for (int i = 0; i < 10; ++i) scaler.Update(false);
  EXPECT_EQ(scaler.scale(), 2);
}

TEST(LossScalerTest, DefaultsMatchCommonPractice) {
  LossScaler scaler;
  EXPECT_EQ(scaler.scale(), 65536);
}

TEST(LossScalerDeathTest, RejectsInvalidOptions) {
  EXPECT_DEATH(LossScaler({.backoff_factor = 1.5}), "backoff_factor");
  EXPECT_DEATH(LossScaler({.initial_scale = 0.5}), "min_scale");
}

}  // namespace
}  // namespace sluice

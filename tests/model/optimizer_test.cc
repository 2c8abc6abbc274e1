#include "sluice/model/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sluice/model/adam.h"
#include "sluice/model/sgd.h"

namespace sluice {
namespace {

OptimizerOptions Rate(double lr, std::optional<double> clip = std::nullopt) {
  return {.learning_rate = std::make_shared<ConstantLearningRate>(lr), .clip_global_norm = clip};
}

TEST(OptimizerTest, PlainSgdStepsAgainstTheGradient) {
  Variable w("w", Tensor::FromVector<float>({1, 2}));
  Sgd sgd(Rate(0.1));
  Variable* vars[] = {&w};
  const Tensor grads[] = {Tensor::FromVector<float>({1, -2})};
  ASSERT_TRUE(sgd.Apply(vars, grads).ok());
  EXPECT_FLOAT_EQ(w.value().data<float>()[0], 0.9f);
  EXPECT_FLOAT_EQ(w.value().data<float>()[1], 2.2f);
  EXPECT_EQ(sgd.iterations(), 1);
  EXPECT_TRUE(sgd.slot_variables().empty());
}

TEST(OptimizerTest, SgdMomentumMatchesKerasRecurrence) {
  Variable w("w", Tensor::FromVector<double>({1}));
  Sgd sgd(Rate(0.1), {.momentum = 0.9});
  Variable* vars[] = {&w};
  double ref_w = 1, ref_v = 0;
  for (int step = 0; step < 3; ++step) {
    const Tensor grads[] = {Tensor::FromVector<double>({ref_w})};  // d/dw of w^2 / 2
    ref_v = 0.9 * ref_v - 0.1 * ref_w;
    ref_w += ref_v;
    ASSERT_TRUE(sgd.Apply(vars, grads).ok());
    EXPECT_DOUBLE_EQ(w.value().data<double>()[0], ref_w);
  }
  ASSERT_EQ(sgd.slot_variables().size(), 1u);
  EXPECT_EQ(sgd.slot_variables()[0]->name(), "w/momentum");
}

TEST(OptimizerTest, AdamMatchesTheKerasFormula) {
  Variable w("w", Tensor::FromVector<double>({1, -3}));
  Adam adam(Rate(0.01));
  Variable* vars[] = {&w};
  double ref[2] = {1, -3}, m[2] = {0, 0}, v[2] = {0, 0};
  for (int t = 1; t <= 4; ++t) {
    const Tensor grads[] = {Tensor::FromVector<double>({2 * ref[0], 2 * ref[1]})};
    const double alpha = 0.01 * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < 2; ++i) {
      const double g = 2 * ref[i];
      m[i] = 0.9 * m[i] + 0.1 * g;
      v[i] = 0.999 * v[i] + 0.001 * g * g;
      ref[i] -= alpha * m[i] / (std::sqrt(v[i]) + 1e-7);
    }
    ASSERT_TRUE(adam.Apply(vars, grads).ok());
    EXPECT_NEAR(w.value().data<double>()[0], ref[0], 1e-12);
    EXPECT_NEAR(w.value().data<double>()[1], ref[1], 1e-12);
  }
  // The first step moves each weight by about the learning rate.
  ASSERT_EQ(adam.slot_variables().size(), 2u);
  EXPECT_EQ(adam.slot_variables()[1]->name(), "w/v");
  EXPECT_EQ(adam.name(), "Adam");
}

TEST(OptimizerTest, AdamWDecaysWeightsEvenWithZeroGradient) {
  Variable w("w", Tensor::FromVector<float>({2}));
  Adam adamw(Rate(0.1), {.weight_decay = 0.5});
  Variable* vars[] = {&w};
  const Tensor grads[] = {Tensor::FromVector<float>({0})};
  ASSERT_TRUE(adamw.Apply(vars, grads).ok());
  EXPECT_FLOAT_EQ(w.value().data<float>()[0], 2 - 0.1f * 0.5f * 2);
  EXPECT_EQ(adamw.name(), "AdamW");
}

TEST(OptimizerTest, GlobalNormClippingScalesAllGradients) {
  Variable a("a", Tensor::FromVector<float>({0, 0}));
  Variable b("b", Tensor::FromVector<float>({0}));
  Sgd sgd(Rate(1.0, /*clip=*/1.0));
  Variable* vars[] = {&a, &b};
  const Tensor grads[] = {Tensor::FromVector<float>({3, 0}), Tensor::FromVector<float>({4})};  // norm 5
  ASSERT_TRUE(sgd.Apply(vars, grads).ok());
  EXPECT_FLOAT_EQ(sgd.last_global_norm(), 5);
  EXPECT_FLOAT_EQ(a.value().data<float>()[0], -0.6f);
  EXPECT_FLOAT_EQ(b.value().data<float>()[0], -0.8f);
}

TEST(OptimizerTest, RejectsNonFiniteAndMismatchedGradientsNamingTheVariable) {
  Variable w("dense/kernel", Tensor::FromVector<float>({1, 1}));
  Sgd sgd(Rate(0.1));
  Variable* vars[] = {&w};
  const Tensor nan[] = {Tensor::FromVector<float>({1, std::nanf("")})};
  Status bad = sgd.Apply(vars, nan);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("the gradient of 'dense/kernel' holds NaN at index 1"), std::string::npos) << bad;
  EXPECT_FLOAT_EQ(w.value().data<float>()[0], 1);  // untouched
  const Tensor wrong[] = {Tensor::FromVector<float>({1, 2, 3})};
  EXPECT_NE(sgd.Apply(vars, wrong).message().find("'dense/kernel' is float32[3] but the variable is float32[2]"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice

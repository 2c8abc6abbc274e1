#include "sluice/model/losses.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice {
namespace {

double Value(const Result<Tensor>& t) {
  EXPECT_TRUE(t.ok()) << t.status();
  return t->dtype() == DType::kFloat64 ? t->scalar<double>() : t->scalar<float>();
}

TEST(LossesTest, BinaryCrossentropyLikeKeras) {
  // keras.losses.BinaryCrossentropy docs: y_true [0, 1, 0, 0], logits [-18.6, 0.51, 2.94, -12.8] -> 0.865.
  const Tensor labels = Tensor::FromVector<float>({0, 1, 0, 0});
  const Tensor logits = Tensor::FromVector<float>({-18.6f, 0.51f, 2.94f, -12.8f});
  EXPECT_NEAR(Value(BinaryCrossentropy(/*from_logits=*/true)(labels, logits)), 0.865, 1e-3);
  // Probabilities: [[0.6, 0.4], [0.4, 0.6]] vs [[0, 1], [0, 0]] -> 0.815 (Keras docs).
  const Tensor z = Tensor::FromVector<float>({0, 1, 0, 0}, Shape{2, 2});
  const Tensor p = Tensor::FromVector<float>({0.6f, 0.4f, 0.4f, 0.6f}, Shape{2, 2});
  EXPECT_NEAR(Value(BinaryCrossentropy()(z, p)), 0.815, 1e-3);
  // Saturated probabilities stay finite.
  EXPECT_TRUE(std::isfinite(Value(BinaryCrossentropy()(Tensor::FromVector<float>({1}), Tensor::FromVector<float>({0})))));
}

TEST(LossesTest, BinaryCrossentropyAcceptsIntegerLabelsWithoutTheTrailingOne) {
  const Tensor labels = Tensor::FromVector<int64_t>({1, 0});
  const Tensor logits = Tensor::FromVector<float>({2, -1}, Shape{2, 1});
  const double expected = (std::log1p(std::exp(-2.0)) + std::log1p(std::exp(-1.0))) / 2;
  EXPECT_NEAR(Value(BinaryCrossentropy(true)(labels, logits)), expected, 1e-6);
  Result<Tensor> bad = BinaryCrossentropy(true)(Tensor::FromVector<int64_t>({1, 0, 1}), logits);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("binary_crossentropy: labels of shape [3] do not match predictions of shape [2, 1]"),
            std::string::npos)
      << bad.status();
}

TEST(LossesTest, SparseCategoricalCrossentropyLikeKeras) {
  // Keras docs: y_true [1, 2], y_pred [[0.05, 0.95, 0], [0.1, 0.8, 0.1]] -> 1.177.
  const Tensor labels = Tensor::FromVector<int64_t>({1, 2});
  const Tensor probs = Tensor::FromVector<float>({0.05f, 0.95f, 0, 0.1f, 0.8f, 0.1f}, Shape{2, 3});
  EXPECT_NEAR(Value(SparseCategoricalCrossentropy()(labels, probs)), 1.177, 1e-3);
  const Tensor logits = Tensor::FromVector<double>({1, 2, 3, 1, 1, 1}, Shape{2, 3});
  const double row0 = -std::log(std::exp(2.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)));
  const double row1 = std::log(3.0);
  EXPECT_NEAR(Value(SparseCategoricalCrossentropy(true)(Tensor::FromVector<int32_t>({1, 0}, Shape{2, 1}), logits)),
              (row0 + row1) / 2, 1e-12);
  EXPECT_FALSE(SparseCategoricalCrossentropy(true)(Tensor::FromVector<int64_t>({1}), logits).ok());
}

TEST(LossesTest, MeanSquaredError) {
  const Tensor y = Tensor::FromVector<float>({0, 1, 0, 0}, Shape{2, 2});
  const Tensor p = Tensor::FromVector<float>({1, 1, 1, 0}, Shape{2, 2});
  EXPECT_NEAR(Value(MeanSquaredErrorLoss()(y, p)), 0.5, 1e-7);  // Keras docs example
}

}  // namespace
}  // namespace sluice

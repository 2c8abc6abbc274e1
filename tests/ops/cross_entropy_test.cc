#include "sluice/ops/cross_entropy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::ExpectTensorNear;
using testing::GradientOfSum;
using testing::RandomTensor;

// -log softmax(row)[label], computed the textbook way.
double NaiveSoftmaxLoss(const std::vector<double>& row, int label) {
  double sum = 0;
  for (double x : row) sum += std::exp(x);
  return -std::log(std::exp(row[label]) / sum);
}

TEST(SparseSoftmaxCrossEntropyTest, MatchesTheDefinition) {
  const Tensor logits = Tensor::FromVector<double>({2, 1, 0.1, 0.5, 2.5, -1}, Shape{2, 3});
  const double want0 = NaiveSoftmaxLoss({2, 1, 0.1}, 0), want1 = NaiveSoftmaxLoss({0.5, 2.5, -1}, 2);
  ExpectTensorNear(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int64_t>({0, 2}), logits),
                   Tensor::FromVector<double>({want0, want1}), 1e-12);
  ExpectTensorNear(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int32_t>({0, 2}), logits),
                   Tensor::FromVector<double>({want0, want1}), 1e-12);
  // Uniform logits over C classes: log(C), as TensorFlow documents.
  ExpectTensorNear(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int32_t>({3}),
                                                       Tensor::Allocate(DType::kFloat32, Shape{1, 4})),
                   Tensor::FromVector<float>({std::log(4.0f)}));
}

TEST(SparseSoftmaxCrossEntropyTest, LargeLogitsStayFinite) {
  const Tensor labels = Tensor::FromVector<int32_t>({1, 1});
  const Tensor logits = Tensor::FromVector<float>({1000, -1000, -1000, 1000}, Shape{2, 2});
  ExpectTensorNear(SparseSoftmaxCrossEntropyWithLogits(labels, logits), Tensor::FromVector<float>({2000, 0}));
  // d/dlogits = softmax - one_hot.
  ExpectTensorNear(
      GradientOfSum([&](const Tensor& x) { return SparseSoftmaxCrossEntropyWithLogits(labels, x); }, logits),
      Tensor::FromVector<float>({1, -1, 0, 0}, Shape{2, 2}));
}

TEST(SparseSoftmaxCrossEntropyTest, LabelOutOfRange) {
  const Tensor logits = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  ExpectInvalidArgument(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int64_t>({0, 3}), logits),
                        "sparse_softmax_cross_entropy_with_logits: label 3 in row 1 is outside the valid "
                        "range [0, 3)");
  ExpectInvalidArgument(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int32_t>({-1, 0}), logits),
                        "label -1 in row 0");
}

TEST(SparseSoftmaxCrossEntropyTest, ShapeErrors) {
  const Tensor logits = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  ExpectInvalidArgument(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int64_t>({0, 1, 2}), logits),
                        "sparse_softmax_cross_entropy_with_logits: input 0 (labels) has shape [3] but input 1 "
                        "(logits) has shape [2, 3]; expected one label per row, shape [2]");
  ExpectInvalidArgument(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<float>({0, 1}), logits),
                        "input 0 must be int32 or int64, got float32");
  ExpectInvalidArgument(SparseSoftmaxCrossEntropyWithLogits(Tensor::FromVector<int64_t>({0, 1}),
                                                            Tensor::Allocate(DType::kFloat32, Shape{2})),
                        "input 1 must have rank 2, got shape [2]");
}

TEST(SparseSoftmaxCrossEntropyTest, GradientMatchesFiniteDifferences) {
  const Tensor labels = Tensor::FromVector<int64_t>({2, 0, 1});
  ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& x) { return SparseSoftmaxCrossEntropyWithLogits(x[0], x[1]); },
      {labels, RandomTensor(Shape{3, 4}, 1, -3, 3)});
}

TEST(SigmoidCrossEntropyTest, MatchesTheDefinition) {
  // z * -log(sigmoid(x)) + (1 - z) * -log(1 - sigmoid(x)).
  const std::vector<double> z = {0, 1, 0.3, 1}, x = {-1.5, 0.2, 2.0, -0.7};
  std::vector<double> want;
  for (size_t i = 0; i < x.size(); ++i) {
    const double s = 1 / (1 + std::exp(-x[i]));
    want.push_back(-z[i] * std::log(s) - (1 - z[i]) * std::log(1 - s));
  }
  ExpectTensorNear(SigmoidCrossEntropyWithLogits(Tensor::FromVector<double>(z, Shape{2, 2}),
                                                 Tensor::FromVector<double>(x, Shape{2, 2})),
                   Tensor::FromVector<double>(want, Shape{2, 2}), 1e-12);
}

TEST(SigmoidCrossEntropyTest, LargeLogitsStayFinite) {
  const Tensor labels = Tensor::FromVector<float>({1, 0, 0, 1});
  const Tensor logits = Tensor::FromVector<float>({1000, 1000, -1000, -1000});
  ExpectTensorNear(SigmoidCrossEntropyWithLogits(labels, logits), Tensor::FromVector<float>({0, 1000, 0, 1000}));
  // sigmoid(x) - z.
  ExpectTensorNear(GradientOfSum([&](const Tensor& x) { return SigmoidCrossEntropyWithLogits(labels, x); }, logits),
                   Tensor::FromVector<float>({0, 1, 0, -1}));
}

TEST(SigmoidCrossEntropyTest, ShapeErrors) {
  ExpectInvalidArgument(SigmoidCrossEntropyWithLogits(Tensor::Allocate(DType::kFloat32, Shape{2}),
                                                      Tensor::Allocate(DType::kFloat32, Shape{3})),
                        "sigmoid_cross_entropy_with_logits: input 1 has shape [3] but input 0 has [2]");
  ExpectInvalidArgument(SigmoidCrossEntropyWithLogits(Tensor::Allocate(DType::kFloat64, Shape{2}),
                                                      Tensor::Allocate(DType::kFloat32, Shape{2})),
                        "input 1 has dtype float32 but input 0 has float64");
}

TEST(SigmoidCrossEntropyTest, GradientMatchesFiniteDifferences) {
  const Tensor labels = RandomTensor(Shape{2, 3}, 3, 0, 1);  // soft labels, held fixed
  ExpectGradientsMatchFiniteDifferences(
      [&](const std::vector<Tensor>& x) { return SigmoidCrossEntropyWithLogits(labels, x[0]); },
      {RandomTensor(Shape{2, 3}, 4, -4, 4)});
}

TEST(MeanSquaredErrorTest, MeansOverTheLastDimension) {
  const Tensor labels = Tensor::FromVector<float>({0, 1, 1, 0}, Shape{2, 2});
  const Tensor predictions = Tensor::FromVector<float>({1, 1, 1, 0}, Shape{2, 2});
  // The tf.keras.losses.mean_squared_error docstring example: [0.5, 0].
  ExpectTensorNear(MeanSquaredError(labels, predictions), Tensor::FromVector<float>({0.5f, 0}));
  ExpectTensorNear(MeanSquaredError(Tensor::FromVector<double>({1, 2, 3}), Tensor::FromVector<double>({2, 2, 5})),
                   Tensor::Scalar<double>(5.0 / 3));
}

TEST(MeanSquaredErrorTest, ShapeErrors) {
  ExpectInvalidArgument(MeanSquaredError(Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)),
                        "mean_squared_error: input 1 must have rank >= 1");
  ExpectInvalidArgument(MeanSquaredError(Tensor::Allocate(DType::kFloat32, Shape{2, 3}),
                                         Tensor::Allocate(DType::kFloat32, Shape{3, 2})),
                        "mean_squared_error: input 1 has shape [3, 2] but input 0 has [2, 3]");
}

TEST(MeanSquaredErrorTest, GradientsMatchFiniteDifferences) {
  for (const Shape& shape : {Shape{4}, Shape{2, 3}, Shape{2, 2, 3}}) {
    SCOPED_TRACE(shape.ToString());
    ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return MeanSquaredError(x[0], x[1]); },
                                          {RandomTensor(shape, 5), RandomTensor(shape, 6)});
  }
}

}  // namespace
}  // namespace sluice

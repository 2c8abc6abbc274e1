#include "sluice/ops/softmax.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::ExpectTensorNear;
using testing::RandomTensor;

TEST(SoftmaxTest, RowsOfTheLastDimension) {
  const Tensor logits = Tensor::FromVector<double>({1, 2, 3, 0, 0, 0}, Shape{2, 3});
  const double sum = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  ExpectTensorNear(Softmax(logits),
                   Tensor::FromVector<double>({std::exp(1.0) / sum, std::exp(2.0) / sum, std::exp(3.0) / sum,
                                               1.0 / 3, 1.0 / 3, 1.0 / 3},
                                              Shape{2, 3}),
                   1e-12);
  ExpectTensorNear(LogSoftmax(logits),
                   Tensor::FromVector<double>({1 - std::log(sum), 2 - std::log(sum), 3 - std::log(sum),
                                               -std::log(3.0), -std::log(3.0), -std::log(3.0)},
                                              Shape{2, 3}),
                   1e-12);
  // Rank 1 is one row; rank 3 is rows of the innermost dimension.
  ExpectTensorNear(Softmax(Tensor::FromVector<float>({0, 0})), Tensor::FromVector<float>({0.5f, 0.5f}));
  ExpectTensorNear(Softmax(Tensor::FromVector<float>({5, 5, 5, 5}, Shape{2, 2, 1})),
                   Tensor::FromVector<float>({1, 1, 1, 1}, Shape{2, 2, 1}));
}

TEST(SoftmaxTest, LargeLogitsStayFinite) {
  const Tensor logits = Tensor::FromVector<float>({1000, -1000, 1000, 1000}, Shape{2, 2});
  ExpectTensorNear(Softmax(logits), Tensor::FromVector<float>({1, 0, 0.5f, 0.5f}, Shape{2, 2}));
  ExpectTensorNear(LogSoftmax(logits), Tensor::FromVector<float>({0, -2000, -std::log(2.0f), -std::log(2.0f)}, Shape{2, 2}));
  for (auto fn : {Softmax, LogSoftmax}) {
    Result<Tensor> grad = testing::GradientOfSum(fn, logits);
    ASSERT_TRUE(grad.ok()) << grad.status();
    for (double g : testing::FloatValues(*grad)) EXPECT_TRUE(std::isfinite(g));
  }
}

TEST(SoftmaxTest, Errors) {
  ExpectInvalidArgument(Softmax(Tensor::Scalar<float>(1)), "softmax: input 0 must have rank >= 1");
  ExpectInvalidArgument(LogSoftmax(Tensor::FromVector<int32_t>({1, 2})),
                        "log_softmax: input 0 must be float32 or float64, got int32");
}

TEST(SoftmaxTest, EmptyRows) {
  Result<Tensor> out = Softmax(Tensor::Allocate(DType::kFloat32, Shape{2, 0}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), (Shape{2, 0}));
}

TEST(SoftmaxTest, GradientsMatchFiniteDifferences) {
  for (const Shape& shape : {Shape{4}, Shape{3, 4}, Shape{2, 2, 3}}) {
    SCOPED_TRACE(shape.ToString());
    for (auto fn : {Softmax, LogSoftmax}) {
      ExpectGradientsMatchFiniteDifferences([fn](const std::vector<Tensor>& x) { return fn(x[0]); },
                                            {RandomTensor(shape, 1, -3, 3)});
    }
  }
}

}  // namespace
}  // namespace sluice

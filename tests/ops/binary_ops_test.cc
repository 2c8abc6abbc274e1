#include "sluice/ops/binary_ops.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::RandomTensor;

TEST(BinaryOpsTest, SameShape) {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2});
  const Tensor b = Tensor::FromVector<float>({4, 3, 2, 1}, Shape{2, 2});
  EXPECT_TRUE(Add(a, b)->Equals(Tensor::FromVector<float>({5, 5, 5, 5}, Shape{2, 2})));
  EXPECT_TRUE(Sub(a, b)->Equals(Tensor::FromVector<float>({-3, -1, 1, 3}, Shape{2, 2})));
  EXPECT_TRUE(Mul(a, b)->Equals(Tensor::FromVector<float>({4, 6, 6, 4}, Shape{2, 2})));
  EXPECT_TRUE(Div(a, b)->Equals(Tensor::FromVector<float>({0.25f, 2.0f / 3, 1.5f, 4}, Shape{2, 2})));
}

TEST(BinaryOpsTest, BroadcastsLikeNumPy) {
  // [2, 1, 3] + [2, 1] -> [2, 2, 3]
  const Tensor a = Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, Shape{2, 1, 3});
  const Tensor b = Tensor::FromVector<double>({10, 20}, Shape{2, 1});
  Result<Tensor> sum = Add(a, b);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_TRUE(sum->Equals(Tensor::FromVector<double>(
      {11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26}, Shape{2, 2, 3})));
  // A scalar on either side.
  EXPECT_TRUE(Mul(Tensor::Scalar<double>(2), b)->Equals(Tensor::FromVector<double>({20, 40}, Shape{2, 1})));
  EXPECT_TRUE(Sub(b, Tensor::Scalar<double>(1))->Equals(Tensor::FromVector<double>({9, 19}, Shape{2, 1})));
}

TEST(BinaryOpsTest, ErrorsNameTheOpAndShapes) {
  const Tensor a = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  const Tensor b = Tensor::Allocate(DType::kFloat32, Shape{4});
  Result<Tensor> bad = Add(a, b);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("add: shapes [2, 3] and [4] cannot be broadcast"), std::string::npos)
      << bad.status();
  Result<Tensor> mixed = Mul(a, Tensor::Allocate(DType::kFloat64, Shape{2, 3}));
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.status().message().find("mul: input 1 has dtype float64 but input 0 has float32"),
            std::string::npos)
      << mixed.status();
  EXPECT_FALSE(Add(Tensor::Allocate(DType::kInt64, Shape{2}), Tensor::Allocate(DType::kInt64, Shape{2})).ok());
}

TEST(BinaryOpsTest, GradientsMatchFiniteDifferences) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {Shape{2, 3}, Shape{2, 3}}, {Shape{2, 3}, Shape{3}}, {Shape{4, 1}, Shape{1, 3}}, {Shape{}, Shape{2, 2}}};
  for (const auto& [sa, sb] : shapes) {
    SCOPED_TRACE(sa.ToString() + " op " + sb.ToString());
    const Tensor a = RandomTensor(sa, 1);
    const Tensor b = RandomTensor(sb, 2, 0.5, 2.0);  // away from 0 for div
    ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return Add(x[0], x[1]); }, {a, b});
    ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return Sub(x[0], x[1]); }, {a, b});
    ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return Mul(x[0], x[1]); }, {a, b});
    ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& x) { return Div(x[0], x[1]); }, {a, b});
  }
}

}  // namespace
}  // namespace sluice

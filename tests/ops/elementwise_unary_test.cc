#include "sluice/ops/elementwise_unary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sluice {
namespace {

Tensor Apply(UnaryOp op, const Tensor& x) {
  Result<Tensor> out = ElementwiseUnary(op, x);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Tensor();
}

TEST(ElementwiseUnaryTest, EachFunction) {
  const Tensor x = Tensor::FromVector<double>({-2.5, 0.5, 1.5, 4});
  EXPECT_TRUE(Apply(UnaryOp::kNeg, x).Equals(Tensor::FromVector<double>({2.5, -0.5, -1.5, -4})));
  EXPECT_TRUE(Apply(UnaryOp::kAbs, x).Equals(Tensor::FromVector<double>({2.5, 0.5, 1.5, 4})));
  EXPECT_TRUE(Apply(UnaryOp::kFloor, x).Equals(Tensor::FromVector<double>({-3, 0, 1, 4})));
  // Half to even, as tf.round.
  EXPECT_TRUE(Apply(UnaryOp::kRound, x).Equals(Tensor::FromVector<double>({-2, 0, 2, 4})));
  EXPECT_TRUE(Apply(UnaryOp::kSqrt, Tensor::FromVector<double>({4, 0})).Equals(Tensor::FromVector<double>({2, 0})));
  EXPECT_TRUE(Apply(UnaryOp::kExp, Tensor::FromVector<double>({0})).Equals(Tensor::FromVector<double>({1})));
  EXPECT_TRUE(Apply(UnaryOp::kLog, Tensor::FromVector<double>({1})).Equals(Tensor::FromVector<double>({0})));
  EXPECT_EQ(Apply(UnaryOp::kLog, Tensor::Scalar(0.0f)).scalar<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(Apply(UnaryOp::kSqrt, Tensor::Scalar(-1.0f)).scalar<float>()));
  EXPECT_TRUE(Apply(UnaryOp::kLogicalNot, Tensor::FromVector<bool>({true, false})).Equals(Tensor::FromVector<bool>({false, true})));
  EXPECT_TRUE(Apply(UnaryOp::kStringLength, Tensor::FromVector<std::string>({"", "abc", "\xc3\xa9"}))
                  .Equals(Tensor::FromVector<int32_t>({0, 3, 2})));
}

TEST(ElementwiseUnaryTest, IntegerNegationWraps) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_TRUE(Apply(UnaryOp::kNeg, Tensor::FromVector<int32_t>({kMin, 3})).Equals(Tensor::FromVector<int32_t>({kMin, -3})));
  EXPECT_TRUE(Apply(UnaryOp::kAbs, Tensor::FromVector<int32_t>({kMin, -3})).Equals(Tensor::FromVector<int32_t>({kMin, 3})));
  EXPECT_TRUE(Apply(UnaryOp::kNeg, Tensor::FromVector<uint8_t>({1})).Equals(Tensor::FromVector<uint8_t>({255})));
}

TEST(ElementwiseUnaryTest, RefusesWhatItDoesNotTake) {
  const struct {
    UnaryOp op;
    DType dtype;
    std::string message;
  } cases[] = {
      {UnaryOp::kExp, DType::kInt32, "exp takes a float32 or float64 operand, got int32"},
      {UnaryOp::kNeg, DType::kBool, "neg takes an integer, float32 or float64 operand, got bool"},
      {UnaryOp::kAbs, DType::kFloat16, "abs takes an integer, float32 or float64 operand, got float16; cast it to float32 first"},
      {UnaryOp::kLogicalNot, DType::kInt64, "not takes a bool operand, got int64"},
      {UnaryOp::kStringLength, DType::kFloat32, "strlen takes a string operand, got float32"},
  };
  for (const auto& c : cases) {
    Result<Tensor> out = ElementwiseUnary(c.op, Tensor::Allocate(c.dtype, Shape{2}));
    ASSERT_FALSE(out.ok()) << c.message;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(), c.message);
  }
}

}  // namespace
}  // namespace sluice

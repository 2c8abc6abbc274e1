#include "sluice/ops/elementwise_binary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sluice {
namespace {

Tensor Apply(BinaryOp op, const Tensor& a, const Tensor& b) {
  Result<Tensor> out = ElementwiseBinary(op, a, b);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Tensor();
}

TEST(ElementwiseBinaryTest, ArithmeticOnEachDtype) {
  const Tensor a = Tensor::FromVector<int32_t>({7, -7, 6});
  const Tensor b = Tensor::FromVector<int32_t>({2, 2, -4});
  EXPECT_TRUE(Apply(BinaryOp::kAdd, a, b).Equals(Tensor::FromVector<int32_t>({9, -5, 2})));
  EXPECT_TRUE(Apply(BinaryOp::kSub, a, b).Equals(Tensor::FromVector<int32_t>({5, -9, 10})));
  EXPECT_TRUE(Apply(BinaryOp::kMul, a, b).Equals(Tensor::FromVector<int32_t>({14, -14, -24})));
  // Truncating division; mod takes the dividend's sign.
  EXPECT_TRUE(Apply(BinaryOp::kDiv, a, b).Equals(Tensor::FromVector<int32_t>({3, -3, -1})));
  EXPECT_TRUE(Apply(BinaryOp::kMod, a, b).Equals(Tensor::FromVector<int32_t>({1, -1, 2})));
  EXPECT_TRUE(Apply(BinaryOp::kMin, a, b).Equals(Tensor::FromVector<int32_t>({2, -7, -4})));
  EXPECT_TRUE(Apply(BinaryOp::kMax, a, b).Equals(Tensor::FromVector<int32_t>({7, 2, 6})));
  const Tensor f = Tensor::FromVector<double>({7.5, -7.5});
  const Tensor g = Tensor::FromVector<double>({2, 2});
  EXPECT_TRUE(Apply(BinaryOp::kDiv, f, g).Equals(Tensor::FromVector<double>({3.75, -3.75})));
  EXPECT_TRUE(Apply(BinaryOp::kMod, f, g).Equals(Tensor::FromVector<double>({1.5, -1.5})));
  const Tensor u = Tensor::FromVector<uint8_t>({250, 3});
  const Tensor v = Tensor::FromVector<uint8_t>({10, 5});
  EXPECT_TRUE(Apply(BinaryOp::kAdd, u, v).Equals(Tensor::FromVector<uint8_t>({4, 8})));  // wraps
  EXPECT_TRUE(Apply(BinaryOp::kSub, v, u).Equals(Tensor::FromVector<uint8_t>({16, 2})));
}

TEST(ElementwiseBinaryTest, IntegerOverflowWraps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_TRUE(Apply(BinaryOp::kAdd, Tensor::Scalar<int64_t>(kMax), Tensor::Scalar<int64_t>(1)).Equals(Tensor::Scalar<int64_t>(kMin)));
  EXPECT_TRUE(Apply(BinaryOp::kMul, Tensor::Scalar<int64_t>(kMax), Tensor::Scalar<int64_t>(2)).Equals(Tensor::Scalar<int64_t>(-2)));
  EXPECT_TRUE(Apply(BinaryOp::kDiv, Tensor::Scalar<int64_t>(kMin), Tensor::Scalar<int64_t>(-1)).Equals(Tensor::Scalar<int64_t>(kMin)));
  EXPECT_TRUE(Apply(BinaryOp::kMod, Tensor::Scalar<int64_t>(kMin), Tensor::Scalar<int64_t>(-1)).Equals(Tensor::Scalar<int64_t>(0)));
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  EXPECT_TRUE(Apply(BinaryOp::kSub, Tensor::Scalar<int32_t>(kMin32), Tensor::Scalar<int32_t>(1))
                  .Equals(Tensor::Scalar<int32_t>(std::numeric_limits<int32_t>::max())));
}

TEST(ElementwiseBinaryTest, IntegerDivisionByZeroIsAnError) {
  for (BinaryOp op : {BinaryOp::kDiv, BinaryOp::kMod}) {
    Result<Tensor> out = ElementwiseBinary(op, Tensor::FromVector<int32_t>({1, 2}), Tensor::FromVector<int32_t>({1, 0}));
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(), std::string(BinaryOpName(op)) + ": integer division by zero");
  }
  // Floating division by zero follows IEEE 754.
  const Tensor q = Apply(BinaryOp::kDiv, Tensor::FromVector<float>({1, -1, 0}), Tensor::FromVector<float>({0, 0, 0}));
  EXPECT_EQ(q.data<float>()[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(q.data<float>()[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(q.data<float>()[2]));
}

TEST(ElementwiseBinaryTest, MinAndMaxPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(Apply(BinaryOp::kMin, Tensor::Scalar(nan), Tensor::Scalar(1.0f)).scalar<float>()));
  EXPECT_TRUE(std::isnan(Apply(BinaryOp::kMax, Tensor::Scalar(1.0f), Tensor::Scalar(nan)).scalar<float>()));
}

TEST(ElementwiseBinaryTest, ComparisonsAndLogic) {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3});
  const Tensor two = Tensor::Scalar(2.0f);
  EXPECT_TRUE(Apply(BinaryOp::kEqual, a, two).Equals(Tensor::FromVector<bool>({false, true, false})));
  EXPECT_TRUE(Apply(BinaryOp::kNotEqual, a, two).Equals(Tensor::FromVector<bool>({true, false, true})));
  EXPECT_TRUE(Apply(BinaryOp::kLess, a, two).Equals(Tensor::FromVector<bool>({true, false, false})));
  EXPECT_TRUE(Apply(BinaryOp::kLessEqual, a, two).Equals(Tensor::FromVector<bool>({true, true, false})));
  EXPECT_TRUE(Apply(BinaryOp::kGreater, two, a).Equals(Tensor::FromVector<bool>({true, false, false})));
  EXPECT_TRUE(Apply(BinaryOp::kGreaterEqual, a, two).Equals(Tensor::FromVector<bool>({false, true, true})));
  const Tensor p = Tensor::FromVector<bool>({true, true, false, false});
  const Tensor q = Tensor::FromVector<bool>({true, false, true, false});
  EXPECT_TRUE(Apply(BinaryOp::kAnd, p, q).Equals(Tensor::FromVector<bool>({true, false, false, false})));
  EXPECT_TRUE(Apply(BinaryOp::kOr, p, q).Equals(Tensor::FromVector<bool>({true, true, true, false})));
  const Tensor s = Tensor::FromVector<std::string>({"cat", "dog"});
  EXPECT_TRUE(Apply(BinaryOp::kEqual, s, Tensor::Scalar("dog")).Equals(Tensor::FromVector<bool>({false, true})));
  EXPECT_TRUE(Apply(BinaryOp::kNotEqual, s, Tensor::Scalar("dog")).Equals(Tensor::FromVector<bool>({true, false})));
}

TEST(ElementwiseBinaryTest, BroadcastsAsNumPy) {
  const Tensor col = Tensor::FromVector<int64_t>({1, 2}, Shape{2, 1});
  const Tensor row = Tensor::FromVector<int64_t>({10, 20, 30}, Shape{3});
  EXPECT_TRUE(Apply(BinaryOp::kAdd, col, row).Equals(Tensor::FromVector<int64_t>({11, 21, 31, 12, 22, 32}, Shape{2, 3})));
  Result<Tensor> bad = ElementwiseBinary(BinaryOp::kAdd, row, Tensor::FromVector<int64_t>({1, 2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(ElementwiseBinaryTest, RefusesWhatItDoesNotTake) {
  const struct {
    BinaryOp op;
    Tensor a, b;
    std::string message;
  } cases[] = {
      {BinaryOp::kAdd, Tensor::Scalar(1.0f), Tensor::Scalar(1.0), "add: operands have different dtypes, float32 and float64"},
      {BinaryOp::kAdd, Tensor::Scalar(true), Tensor::Scalar(true), "add takes integer or floating operands, got bool"},
      {BinaryOp::kLess, Tensor::Scalar("a"), Tensor::Scalar("b"),
       "less does not compare string operands (strings compare with == and != only)"},
      {BinaryOp::kAnd, Tensor::Scalar(1), Tensor::Scalar(1), "and takes bool operands, got int32"},
      {BinaryOp::kMul, Tensor::Scalar(BFloat16(1.0f)), Tensor::Scalar(BFloat16(1.0f)),
       "mul does not take bfloat16; cast it to float32 first"},
  };
  for (const auto& c : cases) {
    Result<Tensor> out = ElementwiseBinary(c.op, c.a, c.b);
    ASSERT_FALSE(out.ok()) << c.message;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().message(), c.message);
  }
}

}  // namespace
}  // namespace sluice

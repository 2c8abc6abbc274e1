#include "sluice/ops/cast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gradient_checker.h"
#include "op_test_util.h"
#include "sluice/ops/binary_ops.h"

namespace sluice {
namespace {

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

TEST(CastTest, IntToFloatKeepsShape) {
  const Tensor x = Tensor::FromVector<int64_t>({1, -2, 3, 4, 5, 6}, Shape{2, 3});
  Result<Tensor> y = Cast(x, DType::kFloat32);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->Equals(Tensor::FromVector<float>({1, -2, 3, 4, 5, 6}, Shape{2, 3})));
}

TEST(CastTest, FloatToIntTruncatesTowardZero) {
  Result<Tensor> y = Cast(Tensor::FromVector<double>({1.9, -1.9, 0.5, -0.0}), DType::kInt32);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(Values<int32_t>(*y), (std::vector<int32_t>{1, -1, 0, 0}));
}

TEST(CastTest, FloatToIntSaturatesAndMapsNanToZero) {
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x =
      Tensor::FromVector<float>({1e20f, -1e20f, inf, -inf, std::nanf(""), 300.0f, -1.0f});
  Result<Tensor> to_int32 = Cast(x, DType::kInt32);
  ASSERT_TRUE(to_int32.ok());
  constexpr int32_t kMax32 = std::numeric_limits<int32_t>::max();
  constexpr int32_t kMin32 = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(Values<int32_t>(*to_int32),
            (std::vector<int32_t>{kMax32, kMin32, kMax32, kMin32, 0, 300, -1}));
  Result<Tensor> to_uint8 = Cast(x, DType::kUInt8);
  ASSERT_TRUE(to_uint8.ok());
  EXPECT_EQ(Values<uint8_t>(*to_uint8), (std::vector<uint8_t>{255, 0, 255, 0, 0, 255, 0}));
  Result<Tensor> to_int64 = Cast(Tensor::FromVector<double>({9.3e18, -9.3e18}), DType::kInt64);
  ASSERT_TRUE(to_int64.ok());
  EXPECT_EQ(Values<int64_t>(*to_int64),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()}));
}

TEST(CastTest, IntegerNarrowingWrapsAndInt64IsExact) {
  const int64_t big = (int64_t{1} << 53) + 1;  // not representable as a double
  Result<Tensor> to_int32 =
      Cast(Tensor::FromVector<int64_t>({int64_t{1} << 32 | 7, -1}), DType::kInt32);
  ASSERT_TRUE(to_int32.ok());
  EXPECT_EQ(Values<int32_t>(*to_int32), (std::vector<int32_t>{7, -1}));
  Result<Tensor> to_uint8 = Cast(Tensor::FromVector<int32_t>({256 + 5, -1}), DType::kUInt8);
  ASSERT_TRUE(to_uint8.ok());
  EXPECT_EQ(Values<uint8_t>(*to_uint8), (std::vector<uint8_t>{5, 255}));
  Result<Tensor> same = Cast(Tensor::FromVector<int64_t>({big}), DType::kInt64);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(Values<int64_t>(*same), (std::vector<int64_t>{big}));
}

TEST(CastTest, BoolConversions) {
  Result<Tensor> to_bool = Cast(Tensor::FromVector<float>({0.0f, 0.5f, -2.0f}), DType::kBool);
  ASSERT_TRUE(to_bool.ok());
  EXPECT_TRUE(to_bool->Equals(Tensor::FromVector<bool>({false, true, true})));
  Result<Tensor> from_bool = Cast(Tensor::FromVector<bool>({true, false}), DType::kInt64);
  ASSERT_TRUE(from_bool.ok());
  EXPECT_EQ(Values<int64_t>(*from_bool), (std::vector<int64_t>{1, 0}));
}

TEST(CastTest, HalfPrecisionRoundsToNearestEven) {
  // 2049 is halfway between the float16 values 2048 and 2050: ties go to even (2048).
  Result<Tensor> half = Cast(Tensor::FromVector<int32_t>({1, 2049, 2051}), DType::kFloat16);
  ASSERT_TRUE(half.ok());
  Result<Tensor> back = Cast(*half, DType::kFloat32);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(Values<float>(*back), (std::vector<float>{1, 2048, 2052}));
  Result<Tensor> bf16 = Cast(Tensor::FromVector<float>({1.0f, 257.0f}), DType::kBFloat16);
  ASSERT_TRUE(bf16.ok());
  Result<Tensor> bf16_back = Cast(*bf16, DType::kFloat64);
  ASSERT_TRUE(bf16_back.ok());
  EXPECT_EQ(Values<double>(*bf16_back), (std::vector<double>{1, 256}));
}

TEST(CastTest, EveryNumericPairConvertsSmallIntegersExactly) {
  const std::vector<DType> dtypes = {DType::kBool,    DType::kUInt8,   DType::kInt32,
                                     DType::kInt64,   DType::kFloat16, DType::kBFloat16,
                                     DType::kFloat32, DType::kFloat64};
  const Tensor ones = Tensor::FromVector<int64_t>({0, 1, 1, 0}, Shape{2, 2});
  for (DType from : dtypes) {
    Result<Tensor> x = Cast(ones, from);
    ASSERT_TRUE(x.ok()) << DTypeName(from);
    for (DType to : dtypes) {
      Result<Tensor> y = Cast(*x, to);
      ASSERT_TRUE(y.ok()) << DTypeName(from) << " -> " << DTypeName(to);
      EXPECT_EQ(y->dtype(), to);
      Result<Tensor> back = Cast(*y, DType::kInt64);
      ASSERT_TRUE(back.ok());
      EXPECT_TRUE(back->Equals(ones)) << DTypeName(from) << " -> " << DTypeName(to);
    }
  }
}

TEST(CastTest, OutputIsAFreshTensor) {
  const Tensor x = Tensor::FromVector<float>({1, 2});
  Result<Tensor> y = Cast(x, DType::kFloat32);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->Equals(x));
  EXPECT_NE(y->raw_data(), x.raw_data());
}

TEST(CastTest, StringToStringIsIdentity) {
  const Tensor x = Tensor::FromVector<std::string>({"a", "bc"});
  Result<Tensor> y = Cast(x, DType::kString);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->Equals(x));
}

TEST(CastTest, StringAndNumericDoNotMix) {
  Result<Tensor> from_string = Cast(Tensor::Scalar("3"), DType::kInt32);
  EXPECT_EQ(from_string.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(from_string.status().message(),
            "Cast: cannot cast string to int32 (string tensors cast only to string)");
  Result<Tensor> to_string = Cast(Tensor::Scalar(3.0f), DType::kString);
  EXPECT_EQ(to_string.status().code(), StatusCode::kInvalidArgument);
}

TEST(CastTest, EmptyTensor) {
  Result<Tensor> y = Cast(Tensor::Allocate(DType::kInt32, Shape{0, 3}), DType::kFloat64);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), (Shape{0, 3}));
  EXPECT_EQ(y->dtype(), DType::kFloat64);
}

TEST(CastTest, FloatCastsPassTheGradientBackInTheInputDType) {
  // float64 -> float32 -> float64: the gradient arrives as float64.
  testing::ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& x) { return Cast(*Cast(x[0], DType::kFloat32), DType::kFloat64); },
      {testing::RandomTensor(Shape{2, 3}, 1)}, /*tolerance=*/1e-3, /*epsilon=*/1e-3);
  Result<Tensor> grad = testing::GradientOfSum(
      [](const Tensor& x) -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(Tensor y, Cast(x, DType::kFloat64));
        return Mul(y, Tensor::Scalar<double>(3));
      },
      Tensor::FromVector<float>({1, 2}));
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_TRUE(grad->Equals(Tensor::FromVector<float>({3, 3})));
}

TEST(CastTest, CastsThroughIntegersAreNotDifferentiable) {
  Tensor x = Tensor::FromVector<double>({1.5, 2.5});
  GradientTape tape;
  tape.Watch(x);
  Result<Tensor> y = Cast(*Cast(x, DType::kInt32), DType::kFloat64);
  ASSERT_TRUE(y.ok());
  const Tensor sources[] = {x};
  Result<std::vector<Tensor>> grads = tape.Gradient(*y, sources);
  ASSERT_FALSE(grads.ok());
  EXPECT_NE(grads.status().message().find("did not take part"), std::string::npos) << grads.status();
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/scale_shift.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ScaleShiftTest, FloatKeepsDtypeAndShape) {
  const Tensor x = Tensor::FromVector<double>({0, 1, 2, 3, 4, 5}, Shape{3, 2});
  Result<Tensor> y = ScaleShift(x, 0.5, -1.0);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->Equals(Tensor::FromVector<double>({-1, -0.5, 0, 0.5, 1, 1.5}, Shape{3, 2})));
}

TEST(ScaleShiftTest, IntegerAndBoolProduceFloat32) {
  Result<Tensor> from_bytes = ScaleShift(Tensor::FromVector<uint8_t>({0, 51, 255}), 1.0 / 255, 0.0);
  ASSERT_TRUE(from_bytes.ok());
  EXPECT_TRUE(from_bytes->Equals(Tensor::FromVector<float>({0.0f, 0.2f, 1.0f})));
  Result<Tensor> from_int64 = ScaleShift(Tensor::Scalar<int64_t>(-3), 2.0, 1.0);
  ASSERT_TRUE(from_int64.ok());
  EXPECT_TRUE(from_int64->Equals(Tensor::Scalar(-5.0f)));
  Result<Tensor> from_bool = ScaleShift(Tensor::FromVector<bool>({true, false}), 3.0, 1.0);
  ASSERT_TRUE(from_bool.ok());
  EXPECT_TRUE(from_bool->Equals(Tensor::FromVector<float>({4.0f, 1.0f})));
  EXPECT_EQ(ScaleShiftOutputDType(DType::kInt32), DType::kFloat32);
  EXPECT_EQ(ScaleShiftOutputDType(DType::kBFloat16), DType::kBFloat16);
}

TEST(ScaleShiftTest, HalfPrecisionRoundsOnce) {
  Result<Tensor> y =
      ScaleShift(Tensor::FromVector<Float16>({Float16(1.5f), Float16(-2.0f)}), 2.0, 0.25);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->dtype(), DType::kFloat16);
  EXPECT_EQ(static_cast<float>(y->data<Float16>()[0]), 3.25f);
  EXPECT_EQ(static_cast<float>(y->data<Float16>()[1]), -3.75f);
}

TEST(ScaleShiftTest, OutputIsAFreshTensor) {
  const Tensor x = Tensor::FromVector<float>({1, 2});
  Result<Tensor> y = ScaleShift(x, 1.0, 0.0);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->Equals(x));
  EXPECT_NE(y->raw_data(), x.raw_data());
}

TEST(ScaleShiftTest, StringIsInvalid) {
  Result<Tensor> y = ScaleShift(Tensor::Scalar("x"), 1.0, 0.0);
  EXPECT_EQ(y.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(y.status().message(), "ScaleShift: expected a numeric tensor, got string");
}

}  // namespace
}  // namespace sluice

#include "sluice/core/dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sluice {
namespace {

TEST(DTypeTest, NamesRoundTripAndSizes) {
  for (DType d : {DType::kBool, DType::kUInt8, DType::kInt32, DType::kInt64, DType::kFloat16, DType::kBFloat16,
                  DType::kFloat32, DType::kFloat64, DType::kString}) {
    EXPECT_EQ(*ParseDType(DTypeName(d)), d);
  }
  EXPECT_EQ(DTypeSize(DType::kFloat16), 2u);
  EXPECT_EQ(DTypeSize(DType::kInt64), 8u);
  EXPECT_FALSE(ParseDType("float8").ok());
}

TEST(DTypeTest, Float16Conversions) {
  EXPECT_EQ(Float16(1.0f).bits, 0x3c00);
  EXPECT_EQ(Float16(-2.0f).bits, 0xc000);
  EXPECT_EQ(Float16(65504.0f).bits, 0x7bff);
  EXPECT_EQ(Float16(1e6f).bits, 0x7c00);                          // overflow to inf
  EXPECT_EQ(Float16(5.960464477539063e-08f).bits, 0x0001);         // smallest subnormal
  EXPECT_EQ(Float16(1.0009765625f).bits, 0x3c01);
  EXPECT_EQ(Float16(1.00048828125f).bits, 0x3c00);                 // ties to even
  EXPECT_TRUE(std::isnan(static_cast<float>(Float16(std::nanf("")))));
  for (float v : {0.0f, 1.5f, -3.25f, 1024.0f, 6.103515625e-05f, 0.0001f}) {
    EXPECT_NEAR(static_cast<float>(Float16(v)), v, std::abs(v) * 1e-3f) << v;
  }
}

TEST(DTypeTest, BFloat16Conversions) {
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_EQ(static_cast<float>(BFloat16(3.140625f)), 3.140625f);
  EXPECT_EQ(BFloat16(1.00390625f).bits, 0x3f80);  // ties to even
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

TEST(DTypeTest, ConvertValue) {
  EXPECT_EQ(ConvertValue<int32_t>(3.7), 3);
  EXPECT_EQ(ConvertValue<bool>(int64_t{2}), true);
  EXPECT_EQ(ConvertValue<float>(Float16(2.5f)), 2.5f);
  EXPECT_EQ(ConvertValue<BFloat16>(int64_t{1}).bits, 0x3f80);
  // Integers convert exactly, not through double.
  EXPECT_EQ(ConvertValue<int64_t>(int64_t{9007199254740993}), 9007199254740993);
  EXPECT_EQ(ConvertValue<uint8_t>(int64_t{257}), 1);  // narrowing wraps
  // Floating to integer saturates; NaN is 0.
  EXPECT_EQ(ConvertValue<uint8_t>(300.0), 255);
  EXPECT_EQ(ConvertValue<int32_t>(-1e20f), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(ConvertValue<int64_t>(std::nan("")), 0);
  EXPECT_EQ(ConvertValue<bool>(Float16(0.5f)), true);
}

TEST(DTypeTest, IntegerBounds) {
  EXPECT_TRUE(IntegerBoundsOf(DType::kBool).Contains(1));
  EXPECT_FALSE(IntegerBoundsOf(DType::kBool).Contains(2));
  EXPECT_FALSE(IntegerBoundsOf(DType::kUInt8).Contains(300));
  EXPECT_FALSE(IntegerBoundsOf(DType::kUInt8).Contains(-1));
  EXPECT_EQ(IntegerBoundsOf(DType::kInt32).max, 2147483647);
  EXPECT_FALSE(IntegerBoundsOf(DType::kInt32).Contains(4294967297));
  EXPECT_TRUE(IntegerBoundsOf(DType::kInt64).Contains(INT64_MIN));
}

}  // namespace
}  // namespace sluice

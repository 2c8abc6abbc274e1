#include "sluice/ops/one_hot.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(OneHotTest, VectorOfIndices) {
  Result<Tensor> y = OneHot(Tensor::FromVector<int64_t>({0, 2, 1}), 3);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->Equals(Tensor::FromVector<float>({1, 0, 0, 0, 0, 1, 0, 1, 0}, Shape{3, 3})));
}

TEST(OneHotTest, ScalarIndexGivesAVector) {
  Result<Tensor> y = OneHot(Tensor::Scalar<int32_t>(1), 4, DType::kInt64);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->Equals(Tensor::FromVector<int64_t>({0, 1, 0, 0})));
}

TEST(OneHotTest, MatrixOfUInt8Indices) {
  Result<Tensor> y =
      OneHot(Tensor::FromVector<uint8_t>({1, 0, 0, 1}, Shape{2, 2}), 2, DType::kUInt8);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(y->Equals(Tensor::FromVector<uint8_t>({0, 1, 1, 0, 1, 0, 0, 1}, Shape{2, 2, 2})));
}

TEST(OneHotTest, OutOfRangeAndNegativeIndicesGiveZeroRows) {
  Result<Tensor> y = OneHot(Tensor::FromVector<int32_t>({-1, 3, 2, 100}), 3, DType::kFloat64);
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(
      y->Equals(Tensor::FromVector<double>({0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}, Shape{4, 3})));
}

TEST(OneHotTest, EveryNumericOutputDtype) {
  for (DType dtype : {DType::kBool, DType::kUInt8, DType::kInt32, DType::kInt64, DType::kFloat16,
                      DType::kBFloat16, DType::kFloat32, DType::kFloat64}) {
    Result<Tensor> y = OneHot(Tensor::Scalar<int64_t>(1), 2, dtype);
    ASSERT_TRUE(y.ok()) << DTypeName(dtype);
    EXPECT_EQ(y->dtype(), dtype);
    EXPECT_EQ(y->shape(), Shape{2});
    EXPECT_EQ(y->ToJson(), dtype == DType::kBool ? "[false, true]" : "[0, 1]");
  }
}

TEST(OneHotTest, EmptyIndices) {
  Result<Tensor> y = OneHot(Tensor::Allocate(DType::kInt64, Shape{0}), 5);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), (Shape{0, 5}));
}

TEST(OneHotTest, InvalidArguments) {
  struct Case {
    Tensor indices;
    int64_t depth;
    DType dtype;
    std::string message;
  };
  const std::vector<Case> cases = {
      {Tensor::Scalar(1.0f), /*depth=*/3, DType::kFloat32,
       "OneHot: indices must be uint8, int32 or int64, got float32"},
      {Tensor::Scalar(true), /*depth=*/3, DType::kFloat32,
       "OneHot: indices must be uint8, int32 or int64, got bool"},
      {Tensor::Scalar<int64_t>(0), /*depth=*/0, DType::kFloat32,
       "OneHot: depth must be > 0, got 0"},
      {Tensor::Scalar<int64_t>(0), /*depth=*/-2, DType::kFloat32,
       "OneHot: depth must be > 0, got -2"},
      {Tensor::Scalar<int64_t>(0), /*depth=*/2, DType::kString,
       "OneHot: dtype must be numeric, got string"},
      {Tensor::Allocate(DType::kInt32, Shape{1, 1, 1, 1, 1, 1, 1, 1}), /*depth=*/2, DType::kFloat32,
       "OneHot: indices of shape [1, 1, 1, 1, 1, 1, 1, 1] would give an output above the maximum "
       "rank 8"},
  };
  for (const Case& c : cases) {
    Result<Tensor> y = OneHot(c.indices, c.depth, c.dtype);
    EXPECT_EQ(y.status().code(), StatusCode::kInvalidArgument) << c.message;
    EXPECT_EQ(y.status().message(), c.message);
  }
}

// The depth is user input: an output whose byte size overflows is
// InvalidArgument naming the shape, one larger than the host is
// ResourceExhausted, never a wrapped size or an abort.
TEST(OneHotTest, HugeDepthsAreErrors) {
  Result<Tensor> overflow = OneHot(Tensor::FromVector<int64_t>({0, 1}), int64_t{1} << 62);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(overflow.status().message().find("OneHot: depth 4611686018427387904: shape [2, 4611686018427387904]"),
            std::string::npos)
      << overflow.status();
  Result<Tensor> huge = OneHot(Tensor::Scalar<int32_t>(1), int64_t{1000000000000});
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted) << huge.status();
}

}  // namespace
}  // namespace sluice

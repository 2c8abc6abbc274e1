#include "sluice/ops/bias_add.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::RandomTensor;

TEST(BiasAddTest, AddsAlongTheLastDimension) {
  const Tensor value = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor bias = Tensor::FromVector<float>({10, 20, 30});
  Result<Tensor> out = BiasAdd(value, bias);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->Equals(Tensor::FromVector<float>({11, 22, 33, 14, 25, 36}, Shape{2, 3})));
  // Rank 1 is a plain sum; rank 3 adds to every innermost row.
  EXPECT_TRUE(BiasAdd(Tensor::FromVector<double>({1, 2}), Tensor::FromVector<double>({3, 4}))
                  ->Equals(Tensor::FromVector<double>({4, 6})));
  EXPECT_TRUE(BiasAdd(Tensor::FromVector<double>({0, 0, 0, 0}, Shape{2, 1, 2}), Tensor::FromVector<double>({1, 2}))
                  ->Equals(Tensor::FromVector<double>({1, 2, 1, 2}, Shape{2, 1, 2})));
}

TEST(BiasAddTest, LargeInputMatchesReference) {
  const Tensor value = RandomTensor(Shape{4096, 17}, 1);
  const Tensor bias = RandomTensor(Shape{17}, 2);
  Result<Tensor> out = BiasAdd(value, bias);
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < value.NumElements(); ++i) {
    ASSERT_EQ(out->data<double>()[i], value.data<double>()[i] + bias.data<double>()[i % 17]) << i;
  }
}

TEST(BiasAddTest, EmptyBatch) {
  Result<Tensor> out = BiasAdd(Tensor::Allocate(DType::kFloat32, Shape{0, 3}), Tensor::Allocate(DType::kFloat32, Shape{3}));
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->shape(), (Shape{0, 3}));
}

TEST(BiasAddTest, ErrorsNameTheInputAndShapes) {
  const Tensor value = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  ExpectInvalidArgument(BiasAdd(value, Tensor::Allocate(DType::kFloat32, Shape{4})),
                        "bias_add: input 1 (bias) has shape [4] but the last dimension of input 0 is 3 "
                        "(shape [2, 3])");
  ExpectInvalidArgument(BiasAdd(value, Tensor::Allocate(DType::kFloat32, Shape{1, 3})),
                        "bias_add: input 1 must have rank 1, got shape [1, 3]");
  ExpectInvalidArgument(BiasAdd(Tensor::Scalar<float>(1), Tensor::Allocate(DType::kFloat32, Shape{1})),
                        "bias_add: input 0 must have rank >= 1, got shape []");
  ExpectInvalidArgument(BiasAdd(value, Tensor::Allocate(DType::kFloat64, Shape{3})),
                        "bias_add: input 1 has dtype float64 but input 0 has float32");
  ExpectInvalidArgument(BiasAdd(Tensor::Allocate(DType::kInt32, Shape{3}), Tensor::Allocate(DType::kInt32, Shape{3})),
                        "bias_add: input 0 must be float32 or float64, got int32");
}

TEST(BiasAddTest, GradientsMatchFiniteDifferences) {
  const auto bias_add = [](const std::vector<Tensor>& x) { return BiasAdd(x[0], x[1]); };
  for (const Shape& shape : {Shape{3}, Shape{2, 3}, Shape{2, 4, 3}}) {
    SCOPED_TRACE(shape.ToString());
    ExpectGradientsMatchFiniteDifferences(bias_add, {RandomTensor(shape, 1), RandomTensor(Shape{3}, 2)});
  }
}

}  // namespace
}  // namespace sluice

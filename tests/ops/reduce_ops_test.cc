#include "sluice/ops/reduce_ops.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"

namespace sluice {
namespace {

const Tensor kX = Tensor::FromVector<double>({1, 2, 3, 4, 5, 6}, Shape{2, 3});

TEST(ReduceOpsTest, SumAndMeanOverAxes) {
  EXPECT_TRUE(Sum(kX)->Equals(Tensor::Scalar<double>(21)));
  EXPECT_TRUE(Sum(kX, {0})->Equals(Tensor::FromVector<double>({5, 7, 9})));
  EXPECT_TRUE(Sum(kX, {-1}, /*keep_dims=*/true)->Equals(Tensor::FromVector<double>({6, 15}, Shape{2, 1})));
  EXPECT_TRUE(Mean(kX, {1})->Equals(Tensor::FromVector<double>({2, 5})));
  EXPECT_TRUE(Mean(kX, {0, 1}, true)->Equals(Tensor::FromVector<double>({3.5}, Shape{1, 1})));
  Result<Tensor> bad = Sum(kX, {2});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("sum: axis 2 is out of range for an input of shape [2, 3]"),
            std::string::npos);
}

TEST(ReduceOpsTest, BroadcastToAndSumToShape) {
  const Tensor row = Tensor::FromVector<double>({1, 2, 3}, Shape{1, 3});
  Result<Tensor> wide = BroadcastTo(row, Shape{2, 3});
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_TRUE(wide->Equals(Tensor::FromVector<double>({1, 2, 3, 1, 2, 3}, Shape{2, 3})));
  EXPECT_TRUE(SumToShape(kX, Shape{1, 3})->Equals(Tensor::FromVector<double>({5, 7, 9}, Shape{1, 3})));
  EXPECT_TRUE(SumToShape(kX, Shape{3})->Equals(Tensor::FromVector<double>({5, 7, 9})));
  EXPECT_TRUE(SumToShape(kX, Shape{})->Equals(Tensor::Scalar<double>(21)));
  EXPECT_FALSE(BroadcastTo(kX, Shape{3, 3}).ok());
}

TEST(ReduceOpsTest, GradientsMatchFiniteDifferences) {
  const Tensor x = testing::RandomTensor(Shape{2, 3, 4}, 3);
  for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {1, 2}, {-1}}) {
    for (bool keep : {false, true}) {
      testing::ExpectGradientsMatchFiniteDifferences(
          [&](const std::vector<Tensor>& in) { return Sum(in[0], axes, keep); }, {x});
      testing::ExpectGradientsMatchFiniteDifferences(
          [&](const std::vector<Tensor>& in) { return Mean(in[0], axes, keep); }, {x});
    }
  }
  testing::ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& in) { return BroadcastTo(in[0], Shape{2, 3, 4}); },
      {testing::RandomTensor(Shape{3, 1}, 4)});
}

}  // namespace
}  // namespace sluice

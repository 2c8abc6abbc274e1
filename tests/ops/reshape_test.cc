#include "sluice/ops/reshape.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"

namespace sluice {
namespace {

TEST(ReshapeTest, KeepsValuesInOrder) {
  const Tensor x = Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  Result<Tensor> y = Reshape(x, Shape{3, 2});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->Equals(Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6}, Shape{3, 2})));
  Result<Tensor> bad = Reshape(x, Shape{4});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("reshape: cannot reshape a tensor of shape [2, 3] (6 elements) to shape [4]"),
            std::string::npos);
}

TEST(ReshapeTest, GradientMatchesFiniteDifferences) {
  testing::ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& in) { return Reshape(in[0], Shape{6, 1}); },
      {testing::RandomTensor(Shape{2, 3}, 1)});
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/matmul.h"

#include <gtest/gtest.h>

#include "gradient_checker.h"

namespace sluice {
namespace {

TEST(MatMulTest, ProductsWithAndWithoutTransposes) {
  const Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape{2, 3});
  const Tensor b = Tensor::FromVector<float>({1, 0, 0, 1, 1, 1}, Shape{3, 2});
  EXPECT_TRUE(MatMul(a, b)->Equals(Tensor::FromVector<float>({4, 5, 10, 11}, Shape{2, 2})));
  // a^T a: [3, 3]
  EXPECT_TRUE(MatMul(a, a, /*transpose_a=*/true, false)
                  ->Equals(Tensor::FromVector<float>({17, 22, 27, 22, 29, 36, 27, 36, 45}, Shape{3, 3})));
  // a a^T: [2, 2]
  EXPECT_TRUE(MatMul(a, a, false, /*transpose_b=*/true)->Equals(Tensor::FromVector<float>({14, 32, 32, 77}, Shape{2, 2})));
  // b^T a^T = (a b)^T
  EXPECT_TRUE(MatMul(b, a, true, true)->Equals(Tensor::FromVector<float>({4, 10, 5, 11}, Shape{2, 2})));
}

TEST(MatMulTest, ShapeErrors) {
  const Tensor a = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  Result<Tensor> bad = MatMul(a, a);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("matmul: inner dimensions differ: a has shape [2, 3] and b has shape [2, 3]; 3 vs 2"),
            std::string::npos)
      << bad.status();
  EXPECT_FALSE(MatMul(Tensor::Allocate(DType::kFloat32, Shape{3}), a).ok());
}

TEST(MatMulTest, GradientsMatchFiniteDifferencesForEveryTranspose) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "transpose_a=" << ta << " transpose_b=" << tb);
      const Tensor a = testing::RandomTensor(ta ? Shape{4, 3} : Shape{3, 4}, 1);
      const Tensor b = testing::RandomTensor(tb ? Shape{2, 4} : Shape{4, 2}, 2);
      testing::ExpectGradientsMatchFiniteDifferences(
          [ta, tb](const std::vector<Tensor>& x) { return MatMul(x[0], x[1], ta, tb); }, {a, b});
    }
  }
}

}  // namespace
}  // namespace sluice

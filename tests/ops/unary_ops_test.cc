#include "sluice/ops/unary_ops.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gradient_checker.h"

namespace sluice {
namespace {

TEST(UnaryOpsTest, Values) {
  const Tensor x = Tensor::FromVector<double>({-2, 0, 3});
  EXPECT_TRUE(Neg(x)->Equals(Tensor::FromVector<double>({2, 0, -3})));
  EXPECT_TRUE(Relu(x)->Equals(Tensor::FromVector<double>({0, 0, 3})));
  EXPECT_TRUE(Tanh(x)->Equals(Tensor::FromVector<double>({std::tanh(-2.0), 0, std::tanh(3.0)})));
  EXPECT_TRUE(Exp(x)->Equals(Tensor::FromVector<double>({std::exp(-2.0), 1, std::exp(3.0)})));
  EXPECT_TRUE(Log(Tensor::FromVector<double>({1, std::exp(2.0)}))->Equals(Tensor::FromVector<double>({0, 2})));
  Result<Tensor> s = Sigmoid(Tensor::FromVector<float>({0, -1000, 1000}));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Equals(Tensor::FromVector<float>({0.5f, 0.0f, 1.0f})));  // no overflow
}

TEST(UnaryOpsTest, RejectsIntegers) {
  Result<Tensor> bad = Relu(Tensor::FromVector<int64_t>({1}));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("relu: input 0 must be float32 or float64, got int64"), std::string::npos);
}

TEST(UnaryOpsTest, GradientsMatchFiniteDifferences) {
  // Values away from relu's kink at 0.
  const Tensor x = Tensor::FromVector<double>({-1.5, -0.3, 0.4, 2.0, 0.9, -0.7}, Shape{2, 3});
  for (auto fn : {Neg, Relu, Sigmoid, Tanh, Exp}) {
    testing::ExpectGradientsMatchFiniteDifferences([fn](const std::vector<Tensor>& in) { return fn(in[0]); }, {x});
  }
  testing::ExpectGradientsMatchFiniteDifferences([](const std::vector<Tensor>& in) { return Log(in[0]); },
                                                 {testing::RandomTensor(Shape{2, 3}, 5, 0.5, 3.0)});
}

}  // namespace
}  // namespace sluice

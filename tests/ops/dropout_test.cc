#include "sluice/ops/dropout.h"

#include <gtest/gtest.h>

#include <cmath>

#include "gradient_checker.h"
#include "op_test_util.h"
#include "sluice/ops/reduce_ops.h"

namespace sluice {
namespace {

using testing::ExpectInvalidArgument;
using testing::RandomTensor;

// Dropout of ones is the scaled mask itself: 0 or 1 / (1 - rate).
Tensor MaskOf(const Shape& shape, double rate, uint64_t seed) {
  Tensor ones = Tensor::Allocate(DType::kFloat64, shape);
  for (int64_t i = 0; i < ones.NumElements(); ++i) ones.mutable_data<double>()[i] = 1;
  return *Dropout(ones, rate, seed);
}

TEST(DropoutTest, KeptValuesAreScaledAndTheRestZero) {
  const Tensor x = RandomTensor(Shape{10, 10}, 1, 1, 2);
  Result<Tensor> y = Dropout(x, 0.25, 42);
  ASSERT_TRUE(y.ok()) << y.status();
  int64_t kept = 0;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    const double out = y->data<double>()[i];
    if (out != 0) {
      ++kept;
      EXPECT_DOUBLE_EQ(out, x.data<double>()[i] / 0.75);
    }
  }
  EXPECT_GT(kept, 50);
  EXPECT_LT(kept, 95);
}

TEST(DropoutTest, MaskIsAPureFunctionOfTheSeed) {
  const Shape shape{300, 200};  // large enough to run on several threads
  EXPECT_TRUE(MaskOf(shape, 0.5, 7).Equals(MaskOf(shape, 0.5, 7)));
  EXPECT_FALSE(MaskOf(shape, 0.5, 7).Equals(MaskOf(shape, 0.5, 8)));
  // Seeds at the ends of the uint64 range are distinct seeds too.
  EXPECT_FALSE(MaskOf(shape, 0.5, ~uint64_t{0}).Equals(MaskOf(shape, 0.5, 0)));
  // A prefix of the tensor gets the same pattern: the mask is by position.
  const Tensor small = MaskOf(Shape{10}, 0.5, 7), large = MaskOf(shape, 0.5, 7);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(small.data<double>()[i], large.data<double>()[i]);
}

TEST(DropoutTest, RateZeroIsIdentity) {
  const Tensor x = Tensor::FromVector<float>({1.5f, -2, 0, 3});
  Result<Tensor> y = Dropout(x, 0, 3);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(y->Equals(x));
}

TEST(DropoutTest, PreservesTheMeanInExpectation) {
  // 1e6 ones at rate 0.3: the kept fraction has standard deviation
  // sqrt(0.3 * 0.7 / 1e6) ~ 4.6e-4, so the mean is 1 within ~1.5e-3 (3 sigma
  // after scaling by 1 / 0.7); 0.01 is a generous bound.
  for (uint64_t seed : {1, 2, 3}) {
    const double mean = Mean(MaskOf(Shape{1000, 1000}, 0.3, seed))->scalar<double>();
    EXPECT_NEAR(mean, 1.0, 0.01) << "seed " << seed;
  }
}

TEST(DropoutTest, RateOutsideZeroToOneIsAnError) {
  const Tensor x = Tensor::FromVector<float>({1});
  ExpectInvalidArgument(Dropout(x, 1.0, 0), "dropout: rate must be in [0, 1), got 1");
  ExpectInvalidArgument(Dropout(x, -0.1, 0), "dropout: rate must be in [0, 1), got -0.1");
  ExpectInvalidArgument(Dropout(x, std::nan(""), 0), "dropout: rate must be in [0, 1)");
  ExpectInvalidArgument(Dropout(Tensor::FromVector<int32_t>({1}), 0.5, 0),
                        "dropout: input 0 must be float32 or float64, got int32");
}

TEST(DropoutTest, GradientIsTheOutputGradientTimesTheMask) {
  const Shape shape{8, 16};
  const Tensor weights = RandomTensor(shape, 5);
  // d(sum(w * dropout(x)))/dx = w * mask.
  Result<Tensor> grad = testing::GradientOfSum(
      [&](const Tensor& x) -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(Tensor y, Dropout(x, 0.4, 11));
        return Mul(y, weights);
      },
      RandomTensor(shape, 6));
  ASSERT_TRUE(grad.ok()) << grad.status();
  EXPECT_TRUE(grad->Equals(*Mul(weights, MaskOf(shape, 0.4, 11))));
  testing::ExpectGradientsMatchFiniteDifferences(
      [](const std::vector<Tensor>& x) { return Dropout(x[0], 0.4, 11); }, {RandomTensor(shape, 6)});
}

}  // namespace
}  // namespace sluice

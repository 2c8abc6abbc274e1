#include "sluice/ops/masked_mean.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gradient_checker.h"
#include "op_test_util.h"

namespace sluice {
namespace {

using testing::ExpectGradientsMatchFiniteDifferences;
using testing::ExpectInvalidArgument;
using testing::ExpectTensorNear;
using testing::RandomTensor;

TEST(MaskedMeanTest, AveragesRealStepsOnly) {
  // Row 0 has steps 0 and 1 real, row 1 only step 0, row 2 none.
  const Tensor values = Tensor::FromVector<float>({1, 2, 3, 4, 100, 100,  //
                                                   5, 6, 100, 100, 100, 100,  //
                                                   7, 7, 7, 7, 7, 7},
                                                  Shape{3, 3, 2});
  const Tensor mask = Tensor::FromVector<float>({1, 1, 0, 1, 0, 0, 0, 0, 0}, Shape{3, 3});
  ExpectTensorNear(MaskedMean(values, mask), Tensor::FromVector<float>({2, 3, 5, 6, 0, 0}, Shape{3, 2}));
}

TEST(MaskedMeanTest, PaddingIsNeverRead) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor values = Tensor::FromVector<double>({4, nan}, Shape{1, 2, 1});
  ExpectTensorNear(MaskedMean(values, Tensor::FromVector<double>({1, 0}, Shape{1, 2})),
                   Tensor::FromVector<double>({4}, Shape{1, 1}));
}

TEST(MaskedMeanTest, ShapeErrors) {
  const Tensor values = Tensor::Allocate(DType::kFloat32, Shape{2, 3, 4});
  ExpectInvalidArgument(MaskedMean(values, Tensor::Allocate(DType::kFloat32, Shape{2, 4})),
                        "masked_mean: input 1 (mask) has shape [2, 4] but input 0 (values) has shape [2, 3, 4]; "
                        "expected mask shape [2, 3]");
  ExpectInvalidArgument(MaskedMean(values, Tensor::Allocate(DType::kFloat64, Shape{2, 3})),
                        "masked_mean: input 1 has dtype float64 but input 0 has float32");
  ExpectInvalidArgument(MaskedMean(Tensor::Allocate(DType::kFloat32, Shape{2, 3}), Tensor::Allocate(DType::kFloat32, Shape{2, 3})),
                        "masked_mean: input 0 must have rank 3, got shape [2, 3]");
}

TEST(MaskedMeanTest, GradientMatchesFiniteDifferences) {
  // The mask is data: held fixed, with an all-padding row.
  const Tensor mask = Tensor::FromVector<double>({1, 1, 0, 1, 0, 0, 0, 0, 0}, Shape{3, 3});
  ExpectGradientsMatchFiniteDifferences([&](const std::vector<Tensor>& x) { return MaskedMean(x[0], mask); },
                                        {RandomTensor(Shape{3, 3, 2}, 1)});
}

}  // namespace
}  // namespace sluice

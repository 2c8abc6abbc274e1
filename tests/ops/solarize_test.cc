#include "sluice/ops/solarize.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

// torchvision.transforms.functional.solarize: values >= threshold inverted.
TEST(Solarize, InvertsValuesAtOrAboveTheThreshold) {
  const Tensor image = Tensor::FromVector<uint8_t>({0, 127, 128, 129, 255, 200}, Shape{1, 2, 3});
  testing::ExpectTensorNear(Solarize(image, 128, 255),
                            Tensor::FromVector<uint8_t>({0, 127, 127, 126, 0, 55}, Shape{1, 2, 3}));
  // A threshold is compared as a float32, as torch compares a uint8 image with a Python float.
  testing::ExpectTensorNear(Solarize(image, 128.000000001, 255),
                            Tensor::FromVector<uint8_t>({0, 127, 127, 126, 0, 55}, Shape{1, 2, 3}));
  testing::ExpectTensorNear(Solarize(image, 256, 255), image);
  testing::ExpectTensorNear(Solarize(image, NAN, 255), image);
  testing::ExpectTensorNear(Solarize(image, -3, 255),
                            Tensor::FromVector<uint8_t>({255, 128, 127, 126, 0, 55}, Shape{1, 2, 3}));
  testing::ExpectTensorNear(Solarize(image, 127.5, 255),
                            Tensor::FromVector<uint8_t>({0, 127, 127, 126, 0, 55}, Shape{1, 2, 3}));
  const Tensor unit = Tensor::FromVector<float>({0.f, 0.25f, 0.5f, 0.75f}, Shape{2, 2, 1});
  testing::ExpectTensorNear(Solarize(unit, 0.5, 1),
                            Tensor::FromVector<float>({0.f, 0.25f, 0.5f, 0.25f}, Shape{2, 2, 1}));
  testing::ExpectInvalidArgument(Solarize(Tensor::FromVector<int32_t>({1}, Shape{1, 1, 1}), 1, 255),
                                 "expected a uint8 or float32 image, got int32");
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/tone_curve.h"

#include <gtest/gtest.h>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

TEST(Posterize, KeepsTheTopBits) {
  const Tensor image = Tensor::FromVector<uint8_t>({0, 7, 8, 100, 200, 255}, Shape{1, 2, 3});
  testing::ExpectTensorNear(Posterize(image, 3), Tensor::FromVector<uint8_t>({0, 0, 0, 96, 192, 224}, Shape{1, 2, 3}));
  testing::ExpectTensorNear(Posterize(image, 8), image);
  testing::ExpectTensorNear(Posterize(image, 0), Tensor::FromVector<uint8_t>({0, 0, 0, 0, 0, 0}, Shape{1, 2, 3}));
  testing::ExpectInvalidArgument(Posterize(image, 9), "posterize: bits must be in [0, 8], got 9");
  testing::ExpectInvalidArgument(Posterize(Tensor::FromVector<float>({1}, Shape{1, 1, 1}), 4),
                                 "posterize: expected a uint8 image, got float32[1, 1, 1]");
}

// Equalize's values against torchvision's are in auto_augment_test.cc; a
// channel with under 256 pixels has step 0 and stays.
TEST(Equalize, SmallChannelsStay) {
  const Tensor image = Tensor::FromVector<uint8_t>({3, 90, 7, 200, 3, 1}, Shape{3, 2, 1});
  testing::ExpectTensorNear(Equalize(image), image);
  testing::ExpectInvalidArgument(Equalize(Tensor::FromVector<float>({1}, Shape{1, 1, 1})),
                                 "equalize: expected a uint8 image");
}

// Each channel stretched to [0, white] alone, truncated; a flat channel stays.
TEST(Autocontrast, StretchesEachChannel) {
  // Channel 0: 50..150; channel 1: flat 77.
  const Tensor image = Tensor::FromVector<uint8_t>({50, 77, 100, 77, 150, 77}, Shape{1, 3, 2});
  testing::ExpectTensorNear(Autocontrast(image),
                            Tensor::FromVector<uint8_t>({0, 77, 127, 77, 255, 77}, Shape{1, 3, 2}));
  // torch's scale is reciprocal(max - min) * 255: 7 * (1 / 7 * 255) is
  // 255, where 7 * (255 / 7) truncates to 254.
  testing::ExpectTensorNear(Autocontrast(Tensor::FromVector<uint8_t>({0, 7, 7}, Shape{1, 3, 1})),
                            Tensor::FromVector<uint8_t>({0, 255, 255}, Shape{1, 3, 1}));
  const Tensor unit = Tensor::FromVector<float>({0.25f, 0.5f, 0.75f, 0.5f}, Shape{2, 2, 1});
  testing::ExpectTensorNear(Autocontrast(unit, 1), Tensor::FromVector<float>({0, 0.5f, 1, 0.5f}, Shape{2, 2, 1}));
  testing::ExpectInvalidArgument(Autocontrast(unit, 0), "max_value must be positive and finite, got 0");
}

TEST(ToneCurves, BatchImagesAreTheirOwn) {
  const Tensor batch = Tensor::FromVector<uint8_t>({10, 20, 30, 40, 0, 255, 100, 200}, Shape{2, 2, 2, 1});
  testing::ExpectTensorNear(Autocontrast(batch),
                            Tensor::FromVector<uint8_t>({0, 85, 170, 255, 0, 255, 100, 200}, Shape{2, 2, 2, 1}));
}

}  // namespace
}  // namespace sluice

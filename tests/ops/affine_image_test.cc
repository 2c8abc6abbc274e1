#include "sluice/ops/affine_image.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

Tensor Ramp(int64_t height, int64_t width, int64_t channels) {
  std::vector<uint8_t> values(static_cast<size_t>(height * width * channels));
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 7 % 251);
  return Tensor::FromVector<uint8_t>(values, Shape{height, width, channels});
}

TEST(AffineImage, IdentityKeepsTheImage) {
  const Tensor image = Ramp(5, 6, 3);
  for (const WarpInterpolation interpolation : {WarpInterpolation::kNearest, WarpInterpolation::kBilinear}) {
    testing::ExpectTensorNear(AffineImage(image, {}, {.interpolation = interpolation, .fill = {9}}), image, 0);
  }
}

// A half turn about the centre is both flips, exactly.
TEST(AffineImage, HalfTurnIsBothFlips) {
  const Tensor image = Ramp(4, 7, 2);
  Result<Tensor> turned = AffineImage(image, {.angle = 180}, {});
  ASSERT_TRUE(turned.ok()) << turned.status();
  for (int64_t y = 0; y < 4; ++y) {
    for (int64_t x = 0; x < 7; ++x) {
      for (int64_t c = 0; c < 2; ++c) {
        EXPECT_EQ(turned->data<uint8_t>()[(y * 7 + x) * 2 + c], image.data<uint8_t>()[((3 - y) * 7 + 6 - x) * 2 + c]);
      }
    }
  }
}

// Translating right by 2 moves every column right and fills the first two.
TEST(AffineImage, TranslationFillsWhatIsUncovered) {
  const Tensor image = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, Shape{2, 4, 1});
  testing::ExpectTensorNear(AffineImage(image, {.translate_x = 2}, {.fill = {-1}}),
                            Tensor::FromVector<float>({-1, -1, 1, 2, -1, -1, 5, 6}, Shape{2, 4, 1}));
  testing::ExpectTensorNear(AffineImage(image, {.translate_x = 2}, {}),
                            Tensor::FromVector<float>({0, 0, 1, 2, 0, 0, 5, 6}, Shape{2, 4, 1}));
  // Half a pixel, bilinear: each value the mean of two, the first half the fill's.
  testing::ExpectTensorNear(
      AffineImage(image, {.translate_x = 0.5}, {.interpolation = WarpInterpolation::kBilinear, .fill = {10}}),
      Tensor::FromVector<float>(
          {0.5f * 1 * 0.5f + 0.5f * 10, 1.5, 2.5, 3.5, 0.5f * 5 * 0.5f + 0.5f * 10, 5.5, 6.5, 7.5}, Shape{2, 4, 1}),
      1e-5);
}

// torchvision's inverse matrix for a rotation of 30 degrees, scale 2, shear
// [10, -5], translate [3, -1] about the image's centre
// (_get_inverse_affine_matrix([0, 0], 30, [3, -1], 2, [10, -5])).
TEST(AffineImage, InverseMatrixIsTorchvisions) {
  Result<std::array<double, 6>> m = InverseAffineMatrix(
      {.angle = 30, .translate_x = 3, .translate_y = -1, .scale = 2, .shear_x = 10, .shear_y = -5}, 8, 8);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::array<double, 6> want = {0.38225103782141406, 0.32249516936163336, -0.8242579441026088,
                                      -0.2878837025782996, 0.4111405360107383,  1.274791643745637};
  for (size_t i = 0; i < 6; ++i) EXPECT_NEAR((*m)[i], want[i], 1e-15) << i;
}

TEST(AffineImage, RejectsBadArguments) {
  const Tensor image = Ramp(3, 3, 3);
  testing::ExpectInvalidArgument(AffineImage(image, {.scale = 0}, {}), "scale must be positive and finite, got 0");
  testing::ExpectInvalidArgument(AffineImage(image, {.shear_y = 90}, {}), "shear must be in (-90, 90) degrees");
  testing::ExpectInvalidArgument(AffineImage(image, {.angle = NAN}, {}), "must be finite");
  testing::ExpectInvalidArgument(AffineImage(image, {}, {.fill = {1, 2}}), "fill has 2 values for an image of 3");
  testing::ExpectInvalidArgument(AffineImage(image, {}, {.fill = {256}}), "within [0, 255] for uint8, got 256");
  testing::ExpectInvalidArgument(AffineImage(Tensor::FromVector<int32_t>({1}, Shape{1, 1, 1}), {}, {}),
                                 "expected a uint8 or float32 image, got int32");
  EXPECT_EQ(ParseWarpInterpolation("bicubic").status().message(),
            "interpolation must be \"nearest\" or \"bilinear\", got \"bicubic\"");
}

}  // namespace
}  // namespace sluice

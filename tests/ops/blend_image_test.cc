#include "sluice/ops/blend_image.h"

#include <gtest/gtest.h>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

// torchvision's F.adjust_brightness / adjust_saturation / adjust_contrast /
// adjust_sharpness (1.3, 0.4, 0.6, 2.5) on the 4x4 RGB image (i * 53 + 17)
// % 256 (as CHW), uint8.
Tensor Image() {
  std::vector<uint8_t> pixels(48);
  for (int i = 0; i < 48; ++i) pixels[static_cast<size_t>(i)] = static_cast<uint8_t>((i * 53 + 17) % 256);
  return Tensor::FromVector<uint8_t>(pixels, Shape{4, 4, 3});
}

TEST(BlendImage, GivesTorchvisionsValues) {
  const Shape shape{4, 4, 3};
  testing::ExpectTensorNear(
      BlendImage(Image(), BlendTarget::kBrightness, 1.3),
      Tensor::FromVector<uint8_t>({22,  91,  159, 228, 255, 33,  102, 171, 240, 255, 45,  114, 183, 252, 255, 57,
                                   126, 195, 255, 0,   68,  137, 206, 255, 11,  80,  149, 218, 255, 23,  92,  161,
                                   230, 255, 35,  104, 172, 241, 255, 46,  115, 184, 253, 255, 58,  127, 196, 255},
                                  shape));
  testing::ExpectTensorNear(
      BlendImage(Image(), BlendTarget::kSaturation, 0.4),
      Tensor::FromVector<uint8_t>({42,  64,  85,  183, 205, 123, 104, 126, 147, 155, 74,  95,  166, 188, 209, 69,
                                   91,  112, 120, 39,  60,  131, 153, 174, 34,  56,  77,  175, 197, 115, 96,  118,
                                   139, 147, 66,  87,  158, 180, 201, 61,  83,  104, 202, 224, 142, 123, 145, 166},
                                  shape));
  testing::ExpectTensorNear(
      BlendImage(Image(), BlendTarget::kContrast, 0.6),
      Tensor::FromVector<uint8_t>({60,  92,  123, 155, 187, 65,  97,  129, 161, 192, 71,  102, 134, 166, 198, 76,
                                   108, 140, 171, 50,  81,  113, 145, 177, 55,  87,  119, 150, 182, 60,  92,  124,
                                   156, 188, 66,  98,  129, 161, 193, 71,  103, 135, 167, 198, 77,  108, 140, 172},
                                  shape));
  testing::ExpectTensorNear(
      BlendImage(Image(), BlendTarget::kSharpness, 2.5),
      Tensor::FromVector<uint8_t>({17,  70,  123, 176, 229, 26,  79,  132, 185, 238, 35,  88,  141, 194, 247, 0,
                                   67,  180, 255, 0,   0,   106, 159, 212, 9,   62,  115, 226, 255, 0,   12,  124,
                                   235, 230, 27,  80,  133, 186, 239, 36,  89,  142, 195, 248, 45,  98,  151, 204},
                                  shape));
}

TEST(BlendImage, FactorOneKeepsAndZeroGivesTheTarget) {
  for (const BlendTarget target :
       {BlendTarget::kBrightness, BlendTarget::kSaturation, BlendTarget::kContrast, BlendTarget::kSharpness}) {
    testing::ExpectTensorNear(BlendImage(Image(), target, 1), Image());
  }
  testing::ExpectTensorNear(BlendImage(Image(), BlendTarget::kBrightness, 0),
                            Tensor::Allocate(DType::kUInt8, Shape{4, 4, 3}));
  // Float images clamp to max_value.
  testing::ExpectTensorNear(
      BlendImage(Tensor::FromVector<float>({0.25f, 0.75f}, Shape{1, 2, 1}), BlendTarget::kBrightness, 2, 1),
      Tensor::FromVector<float>({0.5f, 1}, Shape{1, 2, 1}));
}

TEST(BlendImage, RejectsBadArguments) {
  testing::ExpectInvalidArgument(BlendImage(Image(), BlendTarget::kBrightness, -1),
                                 "factor must be non-negative and finite, got -1");
  testing::ExpectInvalidArgument(BlendImage(Tensor::Allocate(DType::kUInt8, Shape{2, 2, 2}), BlendTarget::kContrast, 1),
                                 "expected 1 or 3 channels, got [2, 2, 2]");
  testing::ExpectInvalidArgument(
      BlendImage(Tensor::FromVector<int32_t>({1}, Shape{1, 1, 1}), BlendTarget::kSaturation, 1),
      "expected a uint8 or float32 image, got int32");
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/erase_image.h"

#include <gtest/gtest.h>

#include <vector>

#include "ops/op_test_util.h"

namespace sluice {
namespace {

// torchvision's F.erase: the window of every channel takes the fill.
TEST(EraseImage, FillsTheWindowInEitherLayout) {
  // A 2-channel 3x3 CHW image, values 0..17.
  std::vector<float> values(18);
  for (int i = 0; i < 18; ++i) values[i] = static_cast<float>(i);
  const Tensor chw = Tensor::FromVector<float>(values, Shape{2, 3, 3});
  const CropWindow window{.top = 1, .left = 0, .height = 1, .width = 2};
  testing::ExpectTensorNear(
      EraseImage(chw, window, ImageLayout::kCHW, Tensor::FromVector<float>({-1, -2})),
      Tensor::FromVector<float>({0, 1, 2, -1, -1, 5, 6, 7, 8, 9, 10, 11, -2, -2, 14, 15, 16, 17}, Shape{2, 3, 3}));
  // Values of the window itself, [C, h, w].
  testing::ExpectTensorNear(
      EraseImage(chw, window, ImageLayout::kCHW, Tensor::FromVector<float>({-1, -2, -3, -4}, Shape{2, 1, 2})),
      Tensor::FromVector<float>({0, 1, 2, -1, -2, 5, 6, 7, 8, 9, 10, 11, -3, -4, 14, 15, 16, 17}, Shape{2, 3, 3}));
  // HWC: the same numbers as a 3x3 image of 2 channels, pixels (1, 0) and (1, 1).
  const Tensor hwc = Tensor::FromVector<float>(values, Shape{3, 3, 2});
  testing::ExpectTensorNear(
      EraseImage(hwc, window, ImageLayout::kHWC, Tensor::FromVector<float>({-1, -2, -3, -4}, Shape{1, 2, 2})),
      Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, -1, -2, -3, -4, 10, 11, 12, 13, 14, 15, 16, 17}, Shape{3, 3, 2}));
  // uint8 takes the values saturated; a batch erases every image.
  const Tensor batch = Tensor::FromVector<uint8_t>(std::vector<uint8_t>(8, 9), Shape{2, 1, 2, 2});
  testing::ExpectTensorNear(EraseImage(batch, {.top = 0, .left = 1, .height = 2, .width = 1}, ImageLayout::kCHW,
                                       Tensor::FromVector<float>({300})),
                            Tensor::FromVector<uint8_t>({9, 255, 9, 255, 9, 255, 9, 255}, Shape{2, 1, 2, 2}));
}

TEST(EraseImage, Errors) {
  const Tensor image = Tensor::Allocate(DType::kFloat32, Shape{3, 4, 4});
  testing::ExpectInvalidArgument(EraseImage(image, {.top = 3, .left = 0, .height = 2, .width = 1}, ImageLayout::kCHW,
                                            Tensor::FromVector<float>({0, 0, 0})),
                                 "erase: crop window 2x1 at (3, 0) is not inside the image of 4x4");
  testing::ExpectInvalidArgument(EraseImage(image, {.top = 0, .left = 0, .height = 2, .width = 2}, ImageLayout::kCHW,
                                            Tensor::FromVector<float>({0, 0})),
                                 "erase: fill must be float32 [3] or [3, 2, 2], got float32[2]");
  testing::ExpectInvalidArgument(
      EraseImage(Tensor::Allocate(DType::kInt32, Shape{1, 2, 2}), {.top = 0, .left = 0, .height = 1, .width = 1},
                 ImageLayout::kCHW, Tensor::FromVector<float>({0})),
      "erase: expected a uint8 or float32 image [C, H, W]");
}

}  // namespace
}  // namespace sluice

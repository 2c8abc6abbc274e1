// Cropping HWC images: the window a crop takes, and CropImage, which copies
// it out of an image [H, W, C] or of every image of a batch [N, H, W, C].
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"
#include "sluice/ops/image_size.h"

namespace sluice {

// Rows [top, top + height) and columns [left, left + width) of an image.
struct CropWindow {
  int64_t top = 0;
  int64_t left = 0;
  int64_t height = 0;
  int64_t width = 0;
  friend bool operator==(const CropWindow&, const CropWindow&) = default;
};

// The centred window of crop_height x crop_width in an image of
// image_height x image_width, as torchvision's CenterCrop places it: top =
// (image_height - crop_height) / 2 and left likewise, each rounded half to
// even. InvalidArgument when the crop is not positive or larger than the
// image.
Result<CropWindow> CenterCropWindow(int64_t image_height, int64_t image_width, int64_t crop_height,
                                    int64_t crop_width);

// InvalidArgument unless the window is non-empty and inside an image of
// height x width.
Status CheckWindowInside(const CropWindow& window, int64_t height, int64_t width);

// The window of every image, same dtype; a window outside the image is
// InvalidArgument.
Result<Tensor> CropImage(const Tensor& images, const CropWindow& window);

}  // namespace sluice

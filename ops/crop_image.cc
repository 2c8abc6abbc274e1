#include "sluice/ops/crop_image.h"

#include <cmath>
#include <cstring>

namespace sluice {

Result<CropWindow> CenterCropWindow(int64_t image_height, int64_t image_width, int64_t crop_height,
                                    int64_t crop_width) {
  if (crop_height <= 0 || crop_width <= 0) {
    return InvalidArgumentError("crop size must be positive, got [", crop_height, ", ", crop_width, "]");
  }
  if (crop_height > image_height || crop_width > image_width) {
    return InvalidArgumentError("crop [", crop_height, ", ", crop_width, "] is larger than the image [",
                                image_height, ", ", image_width, "]");
  }
  // nearbyint rounds half to even in the default rounding mode, as Python's round.
  return CropWindow{
      .top = static_cast<int64_t>(std::nearbyint(static_cast<double>(image_height - crop_height) / 2)),
      .left = static_cast<int64_t>(std::nearbyint(static_cast<double>(image_width - crop_width) / 2)),
      .height = crop_height,
      .width = crop_width};
}

Status CheckWindowInside(const CropWindow& window, int64_t height, int64_t width) {
  if (window.top < 0 || window.left < 0 || window.height <= 0 || window.width <= 0 ||
      window.height > height - window.top || window.width > width - window.left) {
    return InvalidArgumentError("crop window ", window.height, "x", window.width, " at (", window.top,
                                ", ", window.left, ") is not inside the image of ", height, "x", width);
  }
  return OkStatus();
}

Result<Tensor> CropImage(const Tensor& images, const CropWindow& window) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  SLUICE_RETURN_IF_ERROR(CheckWindowInside(window, dims.height, dims.width));
  const Shape shape = dims.batched ? Shape{dims.batch, window.height, window.width, dims.channels}
                                   : Shape{window.height, window.width, dims.channels};
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), shape);  // no larger than the input
  const size_t pixel_bytes = dims.channels * DTypeSize(images.dtype());
  const size_t in_row = dims.width * pixel_bytes, out_row = window.width * pixel_bytes;
  const auto* in = static_cast<const char*>(images.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < dims.batch; ++i) {
    const char* image = in + i * dims.height * in_row;
    for (int64_t y = 0; y < window.height; ++y) {
      std::memcpy(dst, image + (window.top + y) * in_row + window.left * pixel_bytes, out_row);
      dst += out_row;
    }
  }
  return out;
}

}  // namespace sluice

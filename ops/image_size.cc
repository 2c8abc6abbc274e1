#include "sluice/ops/image_size.h"

namespace sluice {

Status CheckMaxPixels(int64_t max_pixels) {
  if (max_pixels > 0) return OkStatus();
  return InvalidArgumentError("max_pixels must be > 0, got ", max_pixels);
}

Result<Shape> ImageShape(std::string_view what, int64_t height, int64_t width, int64_t channels,
                         int64_t max_pixels) {
  if (height <= 0 || width <= 0 || channels <= 0) {
    return InvalidArgumentError(what, " has size ", height, "x", width, " with ", channels,
                                " channels; every dimension must be positive");
  }
  int64_t pixels = 0;
  if (__builtin_mul_overflow(height, width, &pixels) || pixels > max_pixels) {
    return ResourceExhaustedError(what, " of ", height, "x", width,
                                  " pixels exceeds the limit of ", max_pixels, " pixels");
  }
  int64_t values = 0;
  if (__builtin_mul_overflow(pixels, channels, &values)) {
    return ResourceExhaustedError(what, " of ", height, "x", width, "x", channels,
                                  " values is too large");
  }
  return Shape{height, width, channels};
}

Result<ImageDims> ImageDimsOf(const Tensor& images) {
  if (images.rank() != 3 && images.rank() != 4) {
    return InvalidArgumentError("expected an image [H, W, C] or a batch [N, H, W, C], got shape ",
                                images.shape());
  }
  if (images.dtype() == DType::kString) {
    return InvalidArgumentError("expected a numeric image, got dtype string");
  }
  const bool batched = images.rank() == 4;
  const int offset = batched ? 1 : 0;
  return ImageDims{.batch = batched ? images.dim(0) : 1,
                   .height = images.dim(offset),
                   .width = images.dim(offset + 1),
                   .channels = images.dim(offset + 2),
                   .batched = batched};
}

}  // namespace sluice

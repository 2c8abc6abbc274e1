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

}  // namespace sluice

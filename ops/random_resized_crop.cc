#include "sluice/ops/random_resized_crop.h"

#include <algorithm>
#include <cmath>

namespace sluice {

Status CheckRandomResizedCropOptions(const RandomResizedCropOptions& options) {
  const bool finite = std::isfinite(options.scale_min) && std::isfinite(options.scale_max) &&
                      std::isfinite(options.ratio_min) && std::isfinite(options.ratio_max);
  if (!finite || options.scale_min <= 0 || options.scale_min > options.scale_max) {
    return InvalidArgumentError("scale must be 0 < min <= max, got [", options.scale_min, ", ",
                                options.scale_max, "]");
  }
  if (options.ratio_min <= 0 || options.ratio_min > options.ratio_max) {
    return InvalidArgumentError("ratio must be 0 < min <= max, got [", options.ratio_min, ", ",
                                options.ratio_max, "]");
  }
  if (options.attempts < 1 || options.attempts > kMaxRandomCropAttempts) {
    return InvalidArgumentError("attempts must be in [1, ", kMaxRandomCropAttempts, "], got ",
                                options.attempts);
  }
  return OkStatus();
}

CropWindow RandomResizedCropWindow(int64_t height, int64_t width,
                                   const RandomResizedCropOptions& options,
                                   const UniformStream& uniform) {
  const double area = static_cast<double>(height) * static_cast<double>(width);
  const double log_min = std::log(options.ratio_min), log_max = std::log(options.ratio_max);
  for (int a = 0; a < options.attempts; ++a) {
    const int64_t k = 4 * int64_t{a};
    const double target = area * (options.scale_min + (options.scale_max - options.scale_min) * uniform(k));
    const double aspect = std::exp(log_min + (log_max - log_min) * uniform(k + 1));
    // nearbyint rounds half to even in the default rounding mode.
    const double w = std::nearbyint(std::sqrt(target * aspect));
    const double h = std::nearbyint(std::sqrt(target / aspect));
    if (w > 0 && w <= static_cast<double>(width) && h > 0 && h <= static_cast<double>(height)) {
      const auto crop_h = static_cast<int64_t>(h), crop_w = static_cast<int64_t>(w);
      const auto top = static_cast<int64_t>(uniform(k + 2) * static_cast<double>(height - crop_h + 1));
      const auto left = static_cast<int64_t>(uniform(k + 3) * static_cast<double>(width - crop_w + 1));
      return CropWindow{.top = std::min(top, height - crop_h),
                        .left = std::min(left, width - crop_w),
                        .height = crop_h,
                        .width = crop_w};
    }
  }
  const double in_ratio = static_cast<double>(width) / static_cast<double>(height);
  int64_t crop_w = width, crop_h = height;
  if (in_ratio < options.ratio_min) {
    crop_h = static_cast<int64_t>(std::nearbyint(static_cast<double>(width) / options.ratio_min));
  } else if (in_ratio > options.ratio_max) {
    crop_w = static_cast<int64_t>(std::nearbyint(static_cast<double>(height) * options.ratio_max));
  }
  crop_h = std::clamp<int64_t>(crop_h, 1, height);
  crop_w = std::clamp<int64_t>(crop_w, 1, width);
  return CropWindow{.top = (height - crop_h) / 2, .left = (width - crop_w) / 2, .height = crop_h, .width = crop_w};
}

}  // namespace sluice

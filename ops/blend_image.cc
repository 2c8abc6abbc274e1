#include "sluice/ops/blend_image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// torchvision's rgb_to_grayscale of one pixel, in float32 in its order;
// truncated for uint8 as its cast truncates.
template <typename T>
float Gray(const T* pixel, int64_t channels) {
  if (channels == 1) return static_cast<float>(pixel[0]);
  const float gray = 0.2989f * static_cast<float>(pixel[0]) + 0.587f * static_cast<float>(pixel[1]) +
                     0.114f * static_cast<float>(pixel[2]);
  if constexpr (std::is_same_v<T, uint8_t>) return static_cast<float>(static_cast<uint8_t>(gray));
  return gray;
}

// The 3x3 smoothing of the inside pixels of one image (channels values a
// pixel), the border as it is: torchvision's _blurred_degenerate_image.
template <typename T>
void Smooth(const T* image, T* out, int64_t height, int64_t width, int64_t channels) {
  std::memcpy(out, image, static_cast<size_t>(height * width * channels) * sizeof(T));
  const int64_t row = width * channels;
  for (int64_t y = 1; y + 1 < height; ++y) {
    for (int64_t x = 1; x + 1 < width; ++x) {
      for (int64_t c = 0; c < channels; ++c) {
        const T* p = image + y * row + x * channels + c;
        const float around = static_cast<float>(p[-row - channels]) + static_cast<float>(p[-row]) +
                             static_cast<float>(p[-row + channels]) + static_cast<float>(p[-channels]) +
                             static_cast<float>(p[channels]) + static_cast<float>(p[row - channels]) +
                             static_cast<float>(p[row]) + static_cast<float>(p[row + channels]);
        const float smoothed = (around + 5 * static_cast<float>(p[0])) / 13;
        // For uint8 the sum is an exact integer s, and s / 13 is never within
        // 1/26 of a half: rounding it gives what torch's float convolution does.
        if constexpr (std::is_same_v<T, uint8_t>) {
          out[y * row + x * channels + c] = static_cast<uint8_t>(std::nearbyint(smoothed));
        } else {
          out[y * row + x * channels + c] = smoothed;
        }
      }
    }
  }
}

template <typename T>
void Blend(const T* in, T* out, const ImageDims& dims, BlendTarget target, double factor, float white) {
  const auto ratio = static_cast<float>(factor);
  const auto rest = static_cast<float>(1.0 - factor);
  const int64_t channels = dims.channels, pixels = dims.height * dims.width;
  const int64_t values = pixels * channels;
  const auto blend = [&](float v, float target_value) {
    const float mixed = std::clamp(ratio * v + rest * target_value, 0.0f, white);
    return static_cast<T>(mixed);  // truncated for uint8, as torch casts
  };
  std::vector<T> smoothed(target == BlendTarget::kSharpness ? static_cast<size_t>(values) : 0);
  for (int64_t i = 0; i < dims.batch; ++i) {
    const T* image = in + i * values;
    T* dst = out + i * values;
    switch (target) {
      case BlendTarget::kBrightness:
        for (int64_t k = 0; k < values; ++k) dst[k] = blend(static_cast<float>(image[k]), 0.0f);
        break;
      case BlendTarget::kSaturation:
        for (int64_t p = 0; p < pixels; ++p) {
          const float gray = Gray(image + p * channels, channels);
          for (int64_t c = 0; c < channels; ++c) {
            dst[p * channels + c] = blend(static_cast<float>(image[p * channels + c]), gray);
          }
        }
        break;
      case BlendTarget::kContrast: {
        // Summed in double: exact for uint8 grays (torch's float32 sum is
        // exact for them too up to 2^24 / 255 pixels), then torch's mean.
        double sum = 0;
        for (int64_t p = 0; p < pixels; ++p) sum += Gray(image + p * channels, channels);
        const float mean = static_cast<float>(sum) / static_cast<float>(pixels);
        for (int64_t k = 0; k < values; ++k) dst[k] = blend(static_cast<float>(image[k]), mean);
        break;
      }
      case BlendTarget::kSharpness:
        Smooth(image, smoothed.data(), dims.height, dims.width, channels);
        for (int64_t k = 0; k < values; ++k) {
          dst[k] = blend(static_cast<float>(image[k]), static_cast<float>(smoothed[static_cast<size_t>(k)]));
        }
        break;
    }
  }
}

}  // namespace

Result<Tensor> BlendImage(const Tensor& images, BlendTarget target, double factor, float max_value) {
  const bool uint8 = images.dtype() == DType::kUInt8;
  if (!uint8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("blend: expected a uint8 or float32 image, got ", images.dtype(), images.shape());
  }
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  if (dims.channels != 1 && dims.channels != 3) {
    return InvalidArgumentError("blend: expected 1 or 3 channels, got ", images.shape());
  }
  if (!(factor >= 0) || !std::isfinite(factor)) {
    return InvalidArgumentError("blend: factor must be non-negative and finite, got ", factor);
  }
  if (!(max_value > 0) || !std::isfinite(max_value)) {
    return InvalidArgumentError("blend: max_value must be positive and finite, got ", max_value);
  }
  if ((target == BlendTarget::kSaturation && dims.channels == 1) ||
      (target == BlendTarget::kSharpness && (dims.height <= 2 || dims.width <= 2)) || dims.height * dims.width == 0) {
    return images;
  }
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  if (uint8) {
    Blend(images.data<uint8_t>(), out.mutable_data<uint8_t>(), dims, target, factor, 255.0f);
  } else {
    Blend(images.data<float>(), out.mutable_data<float>(), dims, target, factor, max_value);
  }
  return out;
}

}  // namespace sluice

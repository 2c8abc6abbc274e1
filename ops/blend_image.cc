#include "sluice/ops/blend_image.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// torchvision's rgb_to_grayscale of one float pixel, in float32 in its
// order (uint8 images use tables of the same products, BlendUint8).
float Gray(const float* pixel, int64_t channels) {
  if (channels == 1) return pixel[0];
  return 0.2989f * pixel[0] + 0.587f * pixel[1] + 0.114f * pixel[2];
}

// The 3x3 smoothing of the inside pixels of one image (channels values a
// pixel), the border as it is: torchvision's _blurred_degenerate_image.
// For uint8 the weighted sum s is an exact integer, and s / 13 is never
// within 1/26 of a half, so (s + 6) / 13 rounds it as torch's float
// convolution and round do.
template <typename T>
void Smooth(const T* image, T* out, int64_t height, int64_t width, int64_t channels) {
  std::memcpy(out, image, static_cast<size_t>(height * width * channels) * sizeof(T));
  const int64_t row = width * channels;
  using Sum = std::conditional_t<std::is_same_v<T, uint8_t>, int32_t, float>;
  for (int64_t y = 1; y + 1 < height; ++y) {
    const T* above = image + (y - 1) * row;
    const T* middle = image + y * row;
    const T* below = image + (y + 1) * row;
    T* dst = out + y * row;
    // The inside columns' values of the row, every channel.
    for (int64_t k = channels; k < row - channels; ++k) {
      const Sum around = Sum(above[k - channels]) + Sum(above[k]) + Sum(above[k + channels]) +
                         Sum(middle[k - channels]) + Sum(middle[k + channels]) + Sum(below[k - channels]) +
                         Sum(below[k]) + Sum(below[k + channels]);
      if constexpr (std::is_same_v<T, uint8_t>) {
        dst[k] = static_cast<uint8_t>((around + 5 * Sum(middle[k]) + 6) / 13);
      } else {
        dst[k] = (around + 5 * middle[k]) / 13;
      }
    }
  }
}

// factor * v + (1 - factor) * target in float32, clamped to [0, white] and
// converted (truncated for uint8). The products are rounded before the sum,
// as torch computes them (the file has no fused multiply-adds).
struct Blender {
  float ratio, rest, white;
  float operator()(float v, float target) const { return std::clamp(ratio * v + rest * target, 0.0f, white); }
};

// Float images: each value blended with its target in float32.
void BlendFloat(const float* in, float* out, const ImageDims& dims, BlendTarget target, const Blender& blend) {
  const int64_t channels = dims.channels, pixels = dims.height * dims.width;
  const int64_t values = pixels * channels;
  std::vector<float> smoothed(target == BlendTarget::kSharpness ? static_cast<size_t>(values) : 0);
  for (int64_t i = 0; i < dims.batch; ++i) {
    const float* image = in + i * values;
    float* dst = out + i * values;
    switch (target) {
      case BlendTarget::kBrightness:
        for (int64_t k = 0; k < values; ++k) dst[k] = blend(image[k], 0.0f);
        break;
      case BlendTarget::kSaturation:
        for (int64_t p = 0; p < pixels; ++p) {
          const float gray = Gray(image + p * channels, channels);
          for (int64_t c = 0; c < channels; ++c) dst[p * channels + c] = blend(image[p * channels + c], gray);
        }
        break;
      case BlendTarget::kContrast: {
        // torch.mean: summed (here in double), divided in float32.
        double sum = 0;
        for (int64_t p = 0; p < pixels; ++p) sum += Gray(image + p * channels, channels);
        const float mean = static_cast<float>(sum) / static_cast<float>(pixels);
        for (int64_t k = 0; k < values; ++k) dst[k] = blend(image[k], mean);
        break;
      }
      case BlendTarget::kSharpness:
        Smooth(image, smoothed.data(), dims.height, dims.width, channels);
        for (int64_t k = 0; k < values; ++k) dst[k] = blend(image[k], smoothed[static_cast<size_t>(k)]);
        break;
    }
  }
}

// dst[k] = blend(v[k], t[k]) for `count` uint8 values and targets, or
// blend(v[k], level) without targets: with SSE2 16 at a time, each product
// and the sum rounded in float32 as the scalar path rounds them, truncated
// by the conversion.
void BlendValues(const uint8_t* v, const uint8_t* t, float level, int64_t count, const Blender& blend, uint8_t* dst) {
  int64_t k = 0;
#if defined(__SSE2__)
  const __m128 ratio = _mm_set1_ps(blend.ratio), rest = _mm_set1_ps(blend.rest);
  const __m128 rest_of_level = _mm_set1_ps(blend.rest * level);
  const __m128 zero = _mm_setzero_ps(), white = _mm_set1_ps(blend.white);
  const __m128i zeros = _mm_setzero_si128();
  // The four floats of quarter q of 16 bytes widened to 16 bits (w).
  const auto floats = [&](__m128i w, int q) {
    return _mm_cvtepi32_ps((q & 1) == 0 ? _mm_unpacklo_epi16(w, zeros) : _mm_unpackhi_epi16(w, zeros));
  };
  const auto widened = [&](__m128i bytes, int q) {
    return q < 2 ? _mm_unpacklo_epi8(bytes, zeros) : _mm_unpackhi_epi8(bytes, zeros);
  };
  for (; k + 16 <= count; k += 16) {
    const __m128i values = _mm_loadu_si128(reinterpret_cast<const __m128i*>(v + k));
    const __m128i targets = t != nullptr ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(t + k)) : zeros;
    __m128i out[4];
    for (int q = 0; q < 4; ++q) {
      const __m128 scaled = _mm_mul_ps(ratio, floats(widened(values, q), q));
      const __m128 rested = t != nullptr ? _mm_mul_ps(rest, floats(widened(targets, q), q)) : rest_of_level;
      out[q] = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(_mm_add_ps(scaled, rested), zero), white));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + k),
                     _mm_packus_epi16(_mm_packs_epi32(out[0], out[1]), _mm_packs_epi32(out[2], out[3])));
  }
#endif
  for (; k < count; ++k) {
    dst[k] = static_cast<uint8_t>(blend(static_cast<float>(v[k]), t != nullptr ? static_cast<float>(t[k]) : level));
  }
}

// uint8 images by BlendValues: to a whole image's level (brightness: 0,
// contrast: the mean gray), or to per-value targets made first
// (saturation's gray, sharpness' smoothing).
void BlendUint8(const uint8_t* in, uint8_t* out, const ImageDims& dims, BlendTarget target, const Blender& blend) {
  const int64_t channels = dims.channels, pixels = dims.height * dims.width;
  const int64_t values = pixels * channels;
  std::array<float, 256> red, green, blue;  // Gray's products
  for (int v = 0; v < 256; ++v) {
    red[static_cast<size_t>(v)] = 0.2989f * static_cast<float>(v);
    green[static_cast<size_t>(v)] = 0.587f * static_cast<float>(v);
    blue[static_cast<size_t>(v)] = 0.114f * static_cast<float>(v);
  }
  // Gray's products by table, summed in its order, truncated.
  const auto gray = [&](const uint8_t* p) { return static_cast<uint8_t>(red[p[0]] + green[p[1]] + blue[p[2]]); };
  std::vector<uint8_t> targets(
      target == BlendTarget::kSharpness || target == BlendTarget::kSaturation ? static_cast<size_t>(values) : 0);
  for (int64_t i = 0; i < dims.batch; ++i) {
    const uint8_t* image = in + i * values;
    uint8_t* dst = out + i * values;
    if (target == BlendTarget::kBrightness || target == BlendTarget::kContrast) {
      float level = 0;
      if (target == BlendTarget::kContrast) {
        // torch.mean of the truncated grays (the values of one channel):
        // the sum is exact, as torch's float32 one is up to 2^24 / 255
        // pixels, then divided in float32.
        int64_t sum = 0;
        for (int64_t k = 0; k < values; k += channels) sum += channels == 3 ? gray(image + k) : image[k];
        level = static_cast<float>(static_cast<double>(sum)) / static_cast<float>(pixels);
      }
      BlendValues(image, nullptr, level, values, blend, dst);
      continue;
    }
    if (target == BlendTarget::kSaturation) {  // three channels: one stays
      for (int64_t k = 0; k < values; k += 3) targets[k] = targets[k + 1] = targets[k + 2] = gray(image + k);
    } else {
      Smooth(image, targets.data(), dims.height, dims.width, channels);
    }
    BlendValues(image, targets.data(), 0, values, blend, dst);
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
  const Blender blend{.ratio = static_cast<float>(factor),
                      .rest = static_cast<float>(1.0 - factor),
                      .white = uint8 ? 255.0f : max_value};
  if (uint8) {
    BlendUint8(images.data<uint8_t>(), out.mutable_data<uint8_t>(), dims, target, blend);
  } else {
    BlendFloat(images.data<float>(), out.mutable_data<float>(), dims, target, blend);
  }
  return out;
}

}  // namespace sluice

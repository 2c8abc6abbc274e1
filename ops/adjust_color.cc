#include "sluice/ops/adjust_color.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sluice/ops/image_size.h"

namespace sluice {
namespace {

// torchvision's rgb_to_grayscale weights.
float Gray(const float* rgb) { return 0.2989f * rgb[0] + 0.587f * rgb[1] + 0.114f * rgb[2]; }

float Clamp(float x, float white) { return std::clamp(x, 0.0f, white); }

// std::lround(x) as a uint8 for x in [0, 255]: the whole part, plus one when
// the fraction (exact: x - trunc(x) loses no bits here) is at least a half,
// which rounds halves away from zero as lround does. Values outside the
// range (none arise) saturate; NaN gives 0.
uint8_t RoundToUint8(float x) {
  const float clamped = std::min(255.0f, std::max(0.0f, x));  // in this order, NaN gives 0
  const auto whole = static_cast<int32_t>(clamped);
  return static_cast<uint8_t>(whole + (clamped - static_cast<float>(whole) >= 0.5f ? 1 : 0));
}

// RoundToUint8 of n values, 16 at a time in SSE2 registers where the target
// has them (the compiler leaves the scalar loop's comparisons as branches).
void RoundToUint8(const float* in, size_t n, uint8_t* out) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps(), top = _mm_set1_ps(255.0f), half = _mm_set1_ps(0.5f);
  const __m128i one = _mm_set1_epi32(1);
  for (; i + 16 <= n; i += 16) {
    __m128i rounded[4];
    for (int k = 0; k < 4; ++k) {
      // max(v, 0) gives its second operand, 0, for NaN, as the scalar one.
      const __m128 v = _mm_min_ps(_mm_max_ps(_mm_loadu_ps(in + i + 4 * k), zero), top);
      const __m128i whole = _mm_cvttps_epi32(v);
      const __m128 fraction = _mm_sub_ps(v, _mm_cvtepi32_ps(whole));
      rounded[k] = _mm_add_epi32(whole, _mm_and_si128(_mm_castps_si128(_mm_cmpge_ps(fraction, half)), one));
    }
    const __m128i low = _mm_packs_epi32(rounded[0], rounded[1]), high = _mm_packs_epi32(rounded[2], rounded[3]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_packus_epi16(low, high));
  }
#endif
  for (; i < n; ++i) out[i] = RoundToUint8(in[i]);
}

void Brightness(std::span<float> pixels, float factor, float white) {
  for (float& x : pixels) x = Clamp(x * factor, white);
}

void Contrast(std::span<float> pixels, int64_t channels, float factor, float white) {
  double sum = 0;
  for (size_t i = 0; i < pixels.size(); i += channels) sum += channels == 3 ? Gray(&pixels[i]) : pixels[i];
  const float shift = (1 - factor) * static_cast<float>(sum / static_cast<double>(pixels.size() / channels));
  for (float& x : pixels) x = Clamp(factor * x + shift, white);
}

void Saturation(std::span<float> pixels, float factor, float white) {
  for (size_t i = 0; i < pixels.size(); i += 3) {
    const float shift = (1 - factor) * Gray(&pixels[i]);
    for (int c = 0; c < 3; ++c) pixels[i + c] = Clamp(factor * pixels[i + c] + shift, white);
  }
}

// torchvision's _rgb2hsv and _hsv2rgb, on one pixel of [0, white].
void Hue(std::span<float> pixels, float turn, float white) {
  for (size_t i = 0; i < pixels.size(); i += 3) {
    const float r = pixels[i] / white, g = pixels[i + 1] / white, b = pixels[i + 2] / white;
    const float v = std::max({r, g, b});
    const float range = v - std::min({r, g, b});
    if (range == 0) continue;  // grey: no hue to turn
    const float s = range / v;
    const float rc = (v - r) / range, gc = (v - g) / range, bc = (v - b) / range;
    float h = v == r ? bc - gc : v == g ? 2 + rc - bc : 4 + gc - rc;
    h = h / 6 + turn;
    h -= std::floor(h);
    const float h6 = h * 6;
    const int sector = static_cast<int>(std::floor(h6)) % 6;
    const float f = h6 - std::floor(h6);
    const float p = std::clamp(v * (1 - s), 0.0f, 1.0f);
    const float q = std::clamp(v * (1 - s * f), 0.0f, 1.0f);
    const float t = std::clamp(v * (1 - s * (1 - f)), 0.0f, 1.0f);
    const float rgb[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
    for (int c = 0; c < 3; ++c) pixels[i + c] = rgb[sector][c] * white;
  }
}

Status CheckAdjustments(std::span<const ColorAdjustment> adjustments) {
  for (const ColorAdjustment& a : adjustments) {
    const bool hue = a.property == ColorProperty::kHue;
    if (!std::isfinite(a.factor) || (hue ? std::abs(a.factor) > 0.5 : a.factor < 0)) {
      return InvalidArgumentError("adjust_color: ", hue ? "a hue factor must be in [-0.5, 0.5]" : "a factor must be >= 0",
                                  ", got ", a.factor);
    }
  }
  return OkStatus();
}

}  // namespace

Result<Tensor> AdjustColor(const Tensor& images, std::span<const ColorAdjustment> adjustments, float max_value) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  if (images.dtype() != DType::kUInt8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("adjust_color: expected a uint8 or float32 image, got ", images.dtype());
  }
  if (dims.channels != 1 && dims.channels != 3) {
    return InvalidArgumentError("adjust_color: expected 1 or 3 channels, got ", dims.channels);
  }
  if (!std::isfinite(max_value) || max_value <= 0) {
    return InvalidArgumentError("adjust_color: max_value must be positive and finite, got ", max_value);
  }
  SLUICE_RETURN_IF_ERROR(CheckAdjustments(adjustments));
  const bool is_uint8 = images.dtype() == DType::kUInt8;
  const float white = is_uint8 ? 255.0f : max_value;
  const size_t values = static_cast<size_t>(dims.height * dims.width * dims.channels);
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  // A uint8 image's values as floats, one image at a time (from the pool's
  // allocator: a fresh vector would map and zero its pages on every call).
  Tensor scratch =
      Tensor::AllocateUninitialized(DType::kFloat32, Shape{is_uint8 ? static_cast<int64_t>(values) : 0});
  for (int64_t n = 0; n < dims.batch; ++n) {
    std::span<float> pixels;
    if (is_uint8) {
      const uint8_t* in = images.data<uint8_t>() + n * values;
      pixels = {scratch.mutable_data<float>(), values};
      std::copy(in, in + values, pixels.begin());
    } else {
      pixels = {out.mutable_data<float>() + n * values, values};
      std::memcpy(pixels.data(), images.data<float>() + n * values, values * sizeof(float));
    }
    for (const ColorAdjustment& a : adjustments) {
      const auto factor = static_cast<float>(a.factor);
      switch (a.property) {
        case ColorProperty::kBrightness: Brightness(pixels, factor, white); break;
        case ColorProperty::kContrast: Contrast(pixels, dims.channels, factor, white); break;
        case ColorProperty::kSaturation:
          if (dims.channels == 3) Saturation(pixels, factor, white);
          break;
        case ColorProperty::kHue:
          if (dims.channels == 3) Hue(pixels, factor, white);
          break;
      }
    }
    if (is_uint8) {
      uint8_t* dst = out.mutable_data<uint8_t>() + n * values;
      RoundToUint8(pixels.data(), values, dst);
    }
  }
  return out;
}

}  // namespace sluice

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

// The float operations of the loops below, for one value (float) or four
// (__m128, in SSE2 registers), so that one function written over Ops gives
// a pixel the same value in a vector lane as alone.
struct ScalarOps {
  using T = float;
  static float Set(float x) { return x; }
  static float Add(float a, float b) { return a + b; }
  static float Sub(float a, float b) { return a - b; }
  static float Mul(float a, float b) { return a * b; }
  static float Div(float a, float b) { return a / b; }
  static float Floor(float x) { return std::floor(x); }
  static bool Less(float a, float b) { return a < b; }
  static bool Equal(float a, float b) { return a == b; }
  static bool Or(bool a, bool b) { return a || b; }
  static float Select(bool mask, float a, float b) { return mask ? a : b; }
};

#if defined(__SSE2__)
struct Sse2Ops {
  using T = __m128;
  static __m128 Set(float x) { return _mm_set1_ps(x); }
  static __m128 Add(__m128 a, __m128 b) { return _mm_add_ps(a, b); }
  static __m128 Sub(__m128 a, __m128 b) { return _mm_sub_ps(a, b); }
  static __m128 Mul(__m128 a, __m128 b) { return _mm_mul_ps(a, b); }
  static __m128 Div(__m128 a, __m128 b) { return _mm_div_ps(a, b); }
  // std::floor for |x| < 2^31 (from 2^23 up, floats are whole and convert
  // exactly). NaN and larger values give INT_MIN or one less: TurnHue's
  // values are small, and from a non-finite pixel every value is NaN or
  // falls through every sector compare, as std::floor's NaN does.
  static __m128 Floor(__m128 x) {
    const __m128 truncated = _mm_cvtepi32_ps(_mm_cvttps_epi32(x));
    return _mm_sub_ps(truncated, _mm_and_ps(_mm_cmpgt_ps(truncated, x), _mm_set1_ps(1)));
  }
  static __m128 Less(__m128 a, __m128 b) { return _mm_cmplt_ps(a, b); }
  static __m128 Equal(__m128 a, __m128 b) { return _mm_cmpeq_ps(a, b); }
  static __m128 Or(__m128 a, __m128 b) { return _mm_or_ps(a, b); }
  static __m128 Select(__m128 mask, __m128 a, __m128 b) {
    return _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b));
  }
};
#endif

// std::clamp(x, 0, top) as libstdc++ computes it: x < 0 ? 0 : top < x ? top : x.
template <typename Ops>
typename Ops::T ClampTo(typename Ops::T x, typename Ops::T top) {
  const typename Ops::T zero = Ops::Set(0);
  return Ops::Select(Ops::Less(x, zero), zero, Ops::Select(Ops::Less(top, x), top, x));
}

// Four pixels at a time where the target has SSE2, with the scalar loop's
// operations in its order (the same values), the rest one by one.
void Saturation(std::span<float> pixels, float factor, float white) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128 f = _mm_set1_ps(factor), keep = _mm_set1_ps(1 - factor), top = _mm_set1_ps(white);
  for (; i + 12 <= pixels.size(); i += 12) {
    float* rgb = &pixels[i];
    const __m128 r = _mm_setr_ps(rgb[0], rgb[3], rgb[6], rgb[9]), g = _mm_setr_ps(rgb[1], rgb[4], rgb[7], rgb[10]),
                 b = _mm_setr_ps(rgb[2], rgb[5], rgb[8], rgb[11]);
    const __m128 gray = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(0.2989f), r), _mm_mul_ps(_mm_set1_ps(0.587f), g)),
                                   _mm_mul_ps(_mm_set1_ps(0.114f), b));
    const __m128 shift = _mm_mul_ps(keep, gray);  // pixels 0-3; spread below over their 12 values
    const __m128 shifts[3] = {_mm_shuffle_ps(shift, shift, _MM_SHUFFLE(1, 0, 0, 0)),
                              _mm_shuffle_ps(shift, shift, _MM_SHUFFLE(2, 2, 1, 1)),
                              _mm_shuffle_ps(shift, shift, _MM_SHUFFLE(3, 3, 3, 2))};
    for (int k = 0; k < 3; ++k) {
      const __m128 x = _mm_add_ps(_mm_mul_ps(f, _mm_loadu_ps(rgb + 4 * k)), shifts[k]);
      _mm_storeu_ps(rgb + 4 * k, ClampTo<Sse2Ops>(x, top));
    }
  }
#endif
  for (; i < pixels.size(); i += 3) {
    const float shift = (1 - factor) * Gray(&pixels[i]);
    for (int c = 0; c < 3; ++c) pixels[i + c] = Clamp(factor * pixels[i + c] + shift, white);
  }
}

// torchvision's _rgb2hsv, a turn of the hue and _hsv2rgb, for one pixel
// of [0, white] (ScalarOps) or four (Sse2Ops), every step a function of Ops.
// A grey pixel (no hue) is left as it is. The sector is picked by selects,
// not by indexing, so a non-finite value can't pick one outside the six.
template <typename Ops>
void TurnHue(typename Ops::T& red, typename Ops::T& green, typename Ops::T& blue, float turn, float white) {
  using T = typename Ops::T;
  const auto select = Ops::Select;
  const T w = Ops::Set(white), one = Ops::Set(1);
  const auto clamp01 = [&](T x) { return ClampTo<Ops>(x, one); };
  const T r = Ops::Div(red, w), g = Ops::Div(green, w), b = Ops::Div(blue, w);
  T v = select(Ops::Less(r, g), g, r);  // std::max({r, g, b})
  v = select(Ops::Less(v, b), b, v);
  T lowest = select(Ops::Less(g, r), g, r);  // std::min({r, g, b})
  lowest = select(Ops::Less(b, lowest), b, lowest);
  const T range = Ops::Sub(v, lowest);
  const T s = Ops::Div(range, v);
  const T rc = Ops::Div(Ops::Sub(v, r), range), gc = Ops::Div(Ops::Sub(v, g), range),
          bc = Ops::Div(Ops::Sub(v, b), range);
  T h = select(Ops::Equal(v, g), Ops::Sub(Ops::Add(Ops::Set(2), rc), bc), Ops::Sub(Ops::Add(Ops::Set(4), gc), rc));
  h = select(Ops::Equal(v, r), Ops::Sub(bc, gc), h);
  h = Ops::Add(Ops::Div(h, Ops::Set(6)), Ops::Set(turn));
  h = Ops::Sub(h, Ops::Floor(h));
  const T h6 = Ops::Mul(h, Ops::Set(6));
  const T whole = Ops::Floor(h6);
  const T f = Ops::Sub(h6, whole);
  const T sector = select(Ops::Equal(whole, Ops::Set(6)), Ops::Set(0), whole);  // 0 to 5, as int(whole) % 6
  const T p = clamp01(Ops::Mul(v, Ops::Sub(one, s)));
  const T q = clamp01(Ops::Mul(v, Ops::Sub(one, Ops::Mul(s, f))));
  const T t = clamp01(Ops::Mul(v, Ops::Sub(one, Ops::Mul(s, Ops::Sub(one, f)))));
  const auto is = [&](int k) { return Ops::Equal(sector, Ops::Set(static_cast<float>(k))); };
  // By sector: {v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}.
  const T out_r = select(Ops::Or(is(0), is(5)), v, select(is(1), q, select(is(4), t, p)));
  const T out_g = select(Ops::Or(is(1), is(2)), v, select(is(0), t, select(is(3), q, p)));
  const T out_b = select(Ops::Or(is(3), is(4)), v, select(is(2), t, select(is(5), q, p)));
  const auto grey = Ops::Equal(range, Ops::Set(0));
  red = select(grey, red, Ops::Mul(out_r, w));
  green = select(grey, green, Ops::Mul(out_g, w));
  blue = select(grey, blue, Ops::Mul(out_b, w));
}

// TurnHue over interleaved RGB pixels: four at a time where the target has
// SSE2 (gathered into one register per channel), the rest one by one.
void Hue(std::span<float> pixels, float turn, float white) {
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 12 <= pixels.size(); i += 12) {
    const float* in = &pixels[i];
    __m128 r = _mm_setr_ps(in[0], in[3], in[6], in[9]), g = _mm_setr_ps(in[1], in[4], in[7], in[10]),
           b = _mm_setr_ps(in[2], in[5], in[8], in[11]);
    TurnHue<Sse2Ops>(r, g, b, turn, white);
    alignas(16) float planes[3][4];
    _mm_store_ps(planes[0], r);
    _mm_store_ps(planes[1], g);
    _mm_store_ps(planes[2], b);
    for (int k = 0; k < 4; ++k) {
      for (int c = 0; c < 3; ++c) pixels[i + 3 * k + c] = planes[c][k];
    }
  }
#endif
  for (; i + 3 <= pixels.size(); i += 3) TurnHue<ScalarOps>(pixels[i], pixels[i + 1], pixels[i + 2], turn, white);
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
  if (adjustments.empty()) return images;
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

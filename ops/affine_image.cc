#include "sluice/ops/affine_image.h"

#include <climits>
#include <cmath>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// Python's math.radians: degrees times pi / 180.
double Radians(double degrees) { return degrees * (M_PI / 180.0); }

// x rounded to the nearest integer, halves to even (torch's round), or
// INT_MIN when it is outside int's range: an index outside every image.
// SSE2's conversion rounds so in the default mode; a call to nearbyint
// would cost more than the rest of a pixel.
int RoundToInt(float x) {
#if defined(__SSE2__)
  return _mm_cvt_ss2si(_mm_set_ss(x));
#else
  return std::fabs(x) < 2e9f ? static_cast<int>(std::nearbyint(x)) : INT_MIN;
#endif
}

// floor(x) for |x| < 2^31, INT_MIN beyond.
int FloorToInt(float x) {
#if defined(__SSE2__)
  const int truncated = _mm_cvtt_ss2si(_mm_set_ss(x));
#else
  const int truncated = std::fabs(x) < 2e9f ? static_cast<int>(x) : INT_MIN;
#endif
  return truncated - (truncated != INT_MIN && static_cast<float>(truncated) > x);
}

// v as a value of T: rounded half to even and saturated for uint8 (torch.round, then the cast).
template <typename T>
T Converted(float v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    const int r = RoundToInt(v);
    return static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
  } else {
    return v;
  }
}

// Warps each image of `in` (dims.batch images) into `out`. The source point
// of output pixel (x, y) is computed in float32 as torchvision's grid is:
// theta rescaled to [-1, 1] coordinates, applied to the pixel's centre, and
// unnormalised as grid_sample's CPU kernel does.
template <typename T>
void Warp(const T* in, T* out, const ImageDims& dims, const std::array<double, 6>& matrix, const WarpOptions& options) {
  const int64_t height = dims.height, width = dims.width, channels = dims.channels;
  const int64_t image_values = height * width * channels;
  const auto half_width = static_cast<float>(0.5 * static_cast<double>(width));
  const auto half_height = static_cast<float>(0.5 * static_cast<double>(height));
  float t[6];
  for (int k = 0; k < 6; ++k) t[k] = static_cast<float>(matrix[static_cast<size_t>(k)]);
  const float x_by_x = t[0] / half_width, x_by_y = t[1] / half_width, x_offset = t[2] / half_width;
  const float y_by_x = t[3] / half_height, y_by_y = t[4] / half_height, y_offset = t[5] / half_height;
  const float x_scale = static_cast<float>(width) / 2, y_scale = static_cast<float>(height) / 2;
  const bool has_fill = !options.fill.empty();
  // The fill of each channel (0 without one), as a float and as a value.
  std::vector<float> fill(static_cast<size_t>(channels), 0.0f);
  std::vector<T> fill_value(static_cast<size_t>(channels), T{0});
  for (int64_t c = 0; c < channels; ++c) {
    if (has_fill) fill[c] = options.fill.size() == 1 ? options.fill[0] : options.fill[static_cast<size_t>(c)];
    fill_value[c] = Converted<T>(fill[c]);
  }
  // Each column's share of the grid point, base_x * theta (the grid's pixel
  // centres from torch's linspace, exact halves).
  std::vector<float> column_x(static_cast<size_t>(width)), column_y(static_cast<size_t>(width));
  for (int64_t x = 0; x < width; ++x) {
    const auto base_x = static_cast<float>(static_cast<double>(x) - 0.5 * static_cast<double>(width) + 0.5);
    column_x[static_cast<size_t>(x)] = base_x * x_by_x;
    column_y[static_cast<size_t>(x)] = base_x * y_by_x;
  }
  for (int64_t y = 0; y < height; ++y) {
    const auto base_y = static_cast<float>(static_cast<double>(y) - 0.5 * static_cast<double>(height) + 0.5);
    const float row_x = base_y * x_by_y, row_y = base_y * y_by_y;
    for (int64_t x = 0; x < width; ++x) {
      // (base_x * t0 + base_y * t1) + t2, in bmm's order.
      const float grid_x = column_x[static_cast<size_t>(x)] + row_x + x_offset;
      const float grid_y = column_y[static_cast<size_t>(x)] + row_y + y_offset;
      const float source_x = (grid_x + 1) * x_scale - 0.5f;
      const float source_y = (grid_y + 1) * y_scale - 0.5f;
      const int64_t pixel = (y * width + x) * channels;
      if (options.interpolation == WarpInterpolation::kNearest) {
        const int64_t nx = RoundToInt(source_x), ny = RoundToInt(source_y);
        const bool inside = nx >= 0 && nx < width && ny >= 0 && ny < height;
        const int64_t source = (ny * width + nx) * channels;
        for (int64_t i = 0; i < dims.batch; ++i) {
          T* dst = out + i * image_values + pixel;
          const T* src = in + i * image_values + source;
          for (int64_t c = 0; c < channels; ++c) dst[c] = inside ? src[c] : fill_value[c];
        }
        continue;
      }
      const int64_t west = FloorToInt(source_x), north = FloorToInt(source_y);
      const float w = source_x - static_cast<float>(west), e = 1 - w;
      const float n = source_y - static_cast<float>(north), s = 1 - n;
      const float weights[4] = {s * e, s * w, n * e, n * w};  // nw, ne, sw, se
      int64_t sources[4];
      bool inside[4];
      for (int k = 0; k < 4; ++k) {
        const int64_t cx = west + (k & 1), cy = north + (k >> 1);
        inside[k] = cx >= 0 && cx < width && cy >= 0 && cy < height;
        sources[k] = inside[k] ? (cy * width + cx) * channels : 0;
      }
      float mask = 0;
      for (int k = 0; k < 4; ++k) mask += inside[k] ? weights[k] : 0.0f;
      for (int64_t i = 0; i < dims.batch; ++i) {
        const T* image = in + i * image_values;
        for (int64_t c = 0; c < channels; ++c) {
          float v = 0;
          for (int k = 0; k < 4; ++k) v += (inside[k] ? static_cast<float>(image[sources[k] + c]) : 0.0f) * weights[k];
          if (has_fill) v = v * mask + (1 - mask) * fill[c];
          out[i * image_values + pixel + c] = Converted<T>(v);
        }
      }
    }
  }
}

}  // namespace

std::string_view WarpInterpolationName(WarpInterpolation interpolation) {
  return interpolation == WarpInterpolation::kNearest ? "nearest" : "bilinear";
}

Result<WarpInterpolation> ParseWarpInterpolation(std::string_view name) {
  if (name == "nearest") return WarpInterpolation::kNearest;
  if (name == "bilinear") return WarpInterpolation::kBilinear;
  return InvalidArgumentError("interpolation must be \"nearest\" or \"bilinear\", got \"", name, "\"");
}

Result<std::array<double, 6>> InverseAffineMatrix(const AffineParameters& p, int64_t height, int64_t width) {
  if (!(p.scale > 0) || !std::isfinite(p.scale)) {
    return InvalidArgumentError("affine: scale must be positive and finite, got ", p.scale);
  }
  if (!(std::abs(p.shear_x) < 90) || !(std::abs(p.shear_y) < 90)) {
    return InvalidArgumentError("affine: shear must be in (-90, 90) degrees, got [", p.shear_x, ", ", p.shear_y, "]");
  }
  if (!std::isfinite(p.angle) || !std::isfinite(p.translate_x) || !std::isfinite(p.translate_y) ||
      (p.center && (!std::isfinite((*p.center)[0]) || !std::isfinite((*p.center)[1])))) {
    return InvalidArgumentError("affine: angle, translate and center must be finite, got angle ", p.angle,
                                ", translate [", p.translate_x, ", ", p.translate_y, "]");
  }
  // The centre relative to the image's centre, as the tensor path takes it.
  double cx = 0, cy = 0;
  if (p.center) {
    cx = (*p.center)[0] - static_cast<double>(width) * 0.5;
    cy = (*p.center)[1] - static_cast<double>(height) * 0.5;
  }
  const double rot = Radians(p.angle), sx = Radians(p.shear_x), sy = Radians(p.shear_y);
  // Rotation times shear, without the scale: determinant 1.
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  std::array<double, 6> m = {d, -b, 0.0, -c, a, 0.0};
  for (double& v : m) v /= p.scale;
  m[2] += m[0] * (-cx - p.translate_x) + m[1] * (-cy - p.translate_y);
  m[5] += m[3] * (-cx - p.translate_x) + m[4] * (-cy - p.translate_y);
  m[2] += cx;
  m[5] += cy;
  for (const double v : m) {
    if (!std::isfinite(v)) return InvalidArgumentError("affine: the parameters make a matrix that is not finite");
  }
  return m;
}

Result<Tensor> AffineImage(const Tensor& images, const AffineParameters& parameters, const WarpOptions& options) {
  const bool uint8 = images.dtype() == DType::kUInt8;
  if (!uint8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("affine: expected a uint8 or float32 image, got ", images.dtype(), images.shape());
  }
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  SLUICE_ASSIGN_OR_RETURN(const auto matrix, InverseAffineMatrix(parameters, dims.height, dims.width));
  if (!options.fill.empty() && options.fill.size() != 1 && static_cast<int64_t>(options.fill.size()) != dims.channels) {
    return InvalidArgumentError("affine: fill has ", options.fill.size(), " values for an image of ", dims.channels,
                                " channels");
  }
  for (const float v : options.fill) {
    if (!std::isfinite(v) || (uint8 && (v < 0 || v > 255))) {
      return InvalidArgumentError("affine: fill must be finite", uint8 ? " and within [0, 255] for uint8" : "",
                                  ", got ", v);
    }
  }
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  if (out.NumElements() == 0) return out;
  if (uint8) {
    Warp(images.data<uint8_t>(), out.mutable_data<uint8_t>(), dims, matrix, options);
  } else {
    Warp(images.data<float>(), out.mutable_data<float>(), dims, matrix, options);
  }
  return out;
}

}  // namespace sluice

#include "sluice/ops/affine_image.h"

#include <cmath>
#include <cstring>

#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// Python's math.radians: degrees times pi / 180.
double Radians(double degrees) { return degrees * (M_PI / 180.0); }

// The fill of channel c, or 0 without one.
float FillOf(const std::vector<float>& fill, int64_t c) {
  if (fill.empty()) return 0;
  return fill.size() == 1 ? fill[0] : fill[static_cast<size_t>(c)];
}

// Writes v to a pixel of the output, rounded ties-to-even for uint8 (torch.round, then the cast).
template <typename T>
void Store(float v, T* out) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    const float r = std::nearbyint(v);
    *out = static_cast<uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
  } else {
    *out = v;
  }
}

// Warps each image of `in` (count images of height x width x channels) into
// `out`. The source point of output pixel (x, y) is computed in float32 as
// torchvision's grid is: theta rescaled to [-1, 1] coordinates, applied to
// the pixel's centre, and unnormalised as grid_sample's CPU kernel does.
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
  const bool fill = !options.fill.empty();
  for (int64_t y = 0; y < height; ++y) {
    const auto base_y = static_cast<float>(static_cast<double>(y) - 0.5 * static_cast<double>(height) + 0.5);
    for (int64_t x = 0; x < width; ++x) {
      const auto base_x = static_cast<float>(static_cast<double>(x) - 0.5 * static_cast<double>(width) + 0.5);
      const float grid_x = base_x * x_by_x + base_y * x_by_y + x_offset;
      const float grid_y = base_x * y_by_x + base_y * y_by_y + y_offset;
      const float source_x = (grid_x + 1) * x_scale - 0.5f;
      const float source_y = (grid_y + 1) * y_scale - 0.5f;
      const int64_t pixel = (y * width + x) * channels;
      if (options.interpolation == WarpInterpolation::kNearest) {
        const float nx = std::nearbyint(source_x), ny = std::nearbyint(source_y);
        const bool inside = nx >= 0 && nx < static_cast<float>(width) && ny >= 0 && ny < static_cast<float>(height);
        const int64_t source = inside ? (static_cast<int64_t>(ny) * width + static_cast<int64_t>(nx)) * channels : 0;
        for (int64_t i = 0; i < dims.batch; ++i) {
          for (int64_t c = 0; c < channels; ++c) {
            const float v = inside ? static_cast<float>(in[i * image_values + source + c]) : FillOf(options.fill, c);
            Store(v, &out[i * image_values + pixel + c]);
          }
        }
        continue;
      }
      const float west = std::floor(source_x), north = std::floor(source_y);
      const float w = source_x - west, e = 1 - w, n = source_y - north, s = 1 - n;
      const float weights[4] = {s * e, s * w, n * e, n * w};  // nw, ne, sw, se
      int64_t sources[4];
      bool inside[4];
      for (int k = 0; k < 4; ++k) {
        const float cx = west + static_cast<float>(k & 1), cy = north + static_cast<float>(k >> 1);
        inside[k] = cx >= 0 && cx < static_cast<float>(width) && cy >= 0 && cy < static_cast<float>(height);
        sources[k] = inside[k] ? (static_cast<int64_t>(cy) * width + static_cast<int64_t>(cx)) * channels : 0;
      }
      float mask = 0;
      for (int k = 0; k < 4; ++k) mask += inside[k] ? weights[k] : 0.0f;
      for (int64_t i = 0; i < dims.batch; ++i) {
        const T* image = in + i * image_values;
        for (int64_t c = 0; c < channels; ++c) {
          float v = 0;
          for (int k = 0; k < 4; ++k) v += (inside[k] ? static_cast<float>(image[sources[k] + c]) : 0.0f) * weights[k];
          if (fill) v = v * mask + (1 - mask) * FillOf(options.fill, c);
          Store(v, &out[i * image_values + pixel + c]);
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

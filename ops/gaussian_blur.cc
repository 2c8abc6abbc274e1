#include "sluice/ops/gaussian_blur.h"

#include <emmintrin.h>

#include <algorithm>
#include <cmath>

#include "sluice/ops/image_size.h"
#include "sluice/ops/pad_image.h"

namespace sluice {
namespace {

// The largest kernel side: far past any blur's use (SimCLR's is a tenth of
// the image side, 23 for 224), and a bound on the work a spec can ask per
// value (two passes of at most this many taps).
constexpr int64_t kMaxKernelSize = 1023;

// dst[i] = sum over t of weights[t] * src[i + t * stride], i < count.
void Convolve(const float* src, int64_t count, int64_t stride, const std::vector<float>& weights, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = weights[0] * src[i];
  for (size_t t = 1; t < weights.size(); ++t) {
    const float w = weights[t];
    const float* from = src + static_cast<int64_t>(t) * stride;
    for (int64_t i = 0; i < count; ++i) dst[i] += w * from[i];
  }
}

// dst[i] = sum over t of weights[t] * rows[t][i], i < count.
void ConvolveRows(const float* const* rows, int64_t count, const std::vector<float>& weights, float* dst) {
  for (int64_t i = 0; i < count; ++i) dst[i] = weights[0] * rows[0][i];
  for (size_t t = 1; t < weights.size(); ++t) {
    const float w = weights[t];
    const float* from = rows[t];
    for (int64_t i = 0; i < count; ++i) dst[i] += w * from[i];
  }
}

// Rounds to nearest, halves to even (the SSE2 conversion's default mode, and
// torch.round's), saturating to [0, 255].
void RoundToUint8(const float* src, int64_t count, uint8_t* dst) {
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m128i a = _mm_cvtps_epi32(_mm_loadu_ps(src + i));
    const __m128i b = _mm_cvtps_epi32(_mm_loadu_ps(src + i + 4));
    const __m128i c = _mm_cvtps_epi32(_mm_loadu_ps(src + i + 8));
    const __m128i d = _mm_cvtps_epi32(_mm_loadu_ps(src + i + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                     _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d)));
  }
  for (; i < count; ++i) {
    const float v = std::nearbyint(src[i]);
    dst[i] = static_cast<uint8_t>(v <= 0 ? 0 : v >= 255 ? 255 : v);
  }
}

}  // namespace

std::vector<float> GaussianKernel1d(int64_t size, double sigma) {
  std::vector<float> weights(static_cast<size_t>(size));
  const float half = static_cast<float>(size - 1) * 0.5f;
  const auto s = static_cast<float>(sigma);
  float sum = 0;
  for (int64_t i = 0; i < size; ++i) {
    const float r = (static_cast<float>(i) - half) / s;
    weights[i] = std::exp(-0.5f * r * r);
    sum += weights[i];
  }
  for (float& w : weights) w /= sum;
  return weights;
}

Status CheckGaussianKernelSize(int64_t height, int64_t width) {
  for (const int64_t size : {height, width}) {
    if (size <= 0 || size % 2 == 0 || size > kMaxKernelSize) {
      return InvalidArgumentError("kernel size must be odd and in [1, ", kMaxKernelSize, "], got [", height, ", ",
                                  width, "]");
    }
  }
  return OkStatus();
}

Result<Tensor> GaussianBlur(const Tensor& images, const GaussianBlurOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  if (images.dtype() != DType::kUInt8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("gaussian blur: expected a uint8 or float32 image, got ", images.dtype(),
                                images.shape());
  }
  SLUICE_RETURN_IF_ERROR(CheckGaussianKernelSize(options.kernel_height, options.kernel_width));
  for (const double sigma : {options.sigma_y, options.sigma_x}) {
    if (!(sigma > 0) || !std::isfinite(sigma)) {
      return InvalidArgumentError("gaussian blur: sigma must be positive and finite, got [", options.sigma_y, ", ",
                                  options.sigma_x, "]");
    }
  }
  const int64_t half_y = options.kernel_height / 2, half_x = options.kernel_width / 2;
  SLUICE_RETURN_IF_ERROR(CheckPadding("height", dims.height, half_y, half_y, PaddingMode::kReflect)
                             .WithContext(StrCat("gaussian blur of kernel ", options.kernel_height, "x",
                                                 options.kernel_width)));
  SLUICE_RETURN_IF_ERROR(CheckPadding("width", dims.width, half_x, half_x, PaddingMode::kReflect)
                             .WithContext(StrCat("gaussian blur of kernel ", options.kernel_height, "x",
                                                 options.kernel_width)));
  const std::vector<float> weights_y = GaussianKernel1d(options.kernel_height, options.sigma_y);
  const std::vector<float> weights_x = GaussianKernel1d(options.kernel_width, options.sigma_x);

  const bool is_uint8 = images.dtype() == DType::kUInt8;
  const int64_t channels = dims.channels, row_values = dims.width * channels;
  const int64_t padded_values = (dims.width + 2 * half_x) * channels;
  constexpr Buffer::Fill kUninitialized = Buffer::Fill::kUninitialized;
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(images.dtype(), images.shape(), {.fill = kUninitialized}));
  // The horizontal pass's rows, a padded input row, and (uint8) an output row.
  SLUICE_ASSIGN_OR_RETURN(Tensor across, Tensor::TryAllocate(DType::kFloat32, Shape{dims.height, row_values},
                                                              {.fill = kUninitialized}));
  SLUICE_ASSIGN_OR_RETURN(Tensor padded_row, Tensor::TryAllocate(DType::kFloat32, Shape{padded_values},
                                                                  {.fill = kUninitialized}));
  SLUICE_ASSIGN_OR_RETURN(Tensor out_row, Tensor::TryAllocate(DType::kFloat32, Shape{is_uint8 ? row_values : 0},
                                                               {.fill = kUninitialized}));
  float* const across_data = across.mutable_data<float>();
  float* const padded = padded_row.mutable_data<float>();
  std::vector<int64_t> columns(static_cast<size_t>(dims.width + 2 * half_x));
  for (size_t i = 0; i < columns.size(); ++i) {
    columns[i] = PaddedSourceIndex(static_cast<int64_t>(i), dims.width, half_x, PaddingMode::kReflect);
  }
  std::vector<const float*> window(weights_y.size());
  const int64_t image_values = dims.height * row_values;
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t y = 0; y < dims.height; ++y) {
      const int64_t row = b * image_values + y * row_values;
      const auto pad_row = [&](const auto* in) {
        for (size_t i = 0; i < columns.size(); ++i) {
          const int64_t from = row + columns[i] * channels;
          for (int64_t c = 0; c < channels; ++c) padded[static_cast<int64_t>(i) * channels + c] = in[from + c];
        }
      };
      if (is_uint8) {
        pad_row(images.data<uint8_t>());
      } else {
        pad_row(images.data<float>());
      }
      Convolve(padded, row_values, channels, weights_x, across_data + y * row_values);
    }
    for (int64_t y = 0; y < dims.height; ++y) {
      for (size_t t = 0; t < window.size(); ++t) {
        const int64_t source =
            PaddedSourceIndex(y + static_cast<int64_t>(t), dims.height, half_y, PaddingMode::kReflect);
        window[t] = across_data + source * row_values;
      }
      const int64_t row = b * image_values + y * row_values;
      if (!is_uint8) {
        ConvolveRows(window.data(), row_values, weights_y, out.mutable_data<float>() + row);
        continue;
      }
      ConvolveRows(window.data(), row_values, weights_y, out_row.mutable_data<float>());
      RoundToUint8(out_row.data<float>(), row_values, out.mutable_data<uint8_t>() + row);
    }
  }
  return out;
}

}  // namespace sluice

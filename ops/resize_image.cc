#include "sluice/ops/resize_image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "sluice/ops/image_size.h"
#include "sluice/ops/pixel_copy.h"

namespace sluice {
namespace {

// The input coordinates and weights behind each output coordinate of one
// axis: output i reads inputs [starts[i], starts[i] + taps[i]) with
// weights[i * span_size ...] (taps[i] <= span_size; the weights past an
// output's own taps are zero and never read).
struct Spans {
  int64_t span_size = 0;
  int64_t max_taps = 0;  // the largest of taps
  std::vector<int64_t> starts;
  std::vector<int64_t> taps;
  std::vector<float> weights;
};

// Drops each output's leading and trailing zero weights (the kernel's edges
// and the clamped inputs past the image), so the passes loop over only the
// taps that contribute; a zero weight adds nothing to a sum.
void TrimSpans(int64_t in, Spans& spans) {
  const auto out = static_cast<int64_t>(spans.starts.size());
  spans.taps.resize(out);
  for (int64_t x = 0; x < out; ++x) {
    float* weights = &spans.weights[x * spans.span_size];
    int64_t end = std::min(spans.span_size, in - spans.starts[x]);
    while (end > 0 && weights[end - 1] == 0.0f) --end;
    int64_t first = 0;
    while (first < end && weights[first] == 0.0f) ++first;
    if (first > 0) {
      std::copy(weights + first, weights + end, weights);
      std::fill(weights + (end - first), weights + end, 0.0f);
    }
    spans.starts[x] += first;
    spans.taps[x] = end - first;
    spans.max_taps = std::max(spans.max_taps, spans.taps[x]);
  }
}

// A kernel at half-pixel centres, widened by in / out when shrinking with
// antialias (TensorFlow's ScaleAndTranslate, ComputeSpansCore): output x
// samples the input at (x + 0.5) * in / out, each input within `radius`
// (times the widening) weighs kernel(distance / widening), and the weights
// are normalised per output, those of inputs past the edges left out.
template <typename Kernel>
Spans ScaledKernelSpans(int64_t in, int64_t out, bool antialias, float kernel_radius, Kernel kernel) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  const float inv_scale = 1.0f / scale;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = kernel_radius * kernel_scale;
  Spans spans;
  spans.span_size = std::min<int64_t>(2 * static_cast<int64_t>(std::ceil(radius)) + 1, in);
  spans.starts.resize(out);
  spans.weights.assign(out * spans.span_size, 0.0f);
  for (int64_t x = 0; x < out; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * inv_scale;
    int64_t start = static_cast<int64_t>(std::ceil(sample - radius - 0.5f));
    int64_t end = static_cast<int64_t>(std::floor(sample + radius - 0.5f));
    start = std::clamp<int64_t>(start, 0, in - 1);
    end = std::min(std::clamp<int64_t>(end, 0, in - 1) + 1, start + spans.span_size);
    float* weights = &spans.weights[x * spans.span_size];
    float total = 0.0f;
    for (int64_t source = start; source < end; ++source) {
      const float weight = kernel((static_cast<float>(source) + 0.5f - sample) / kernel_scale);
      weights[source - start] = weight;
      total += weight;
    }
    if (total != 0.0f) {
      for (int64_t k = 0; k < end - start; ++k) weights[k] /= total;
    }
    spans.starts[x] = start;
  }
  TrimSpans(in, spans);
  return spans;
}

// The triangle kernel: without antialias exactly the two
// linear-interpolation weights of ResizeBilinear, with the edges clamped.
Spans TriangleSpans(int64_t in, int64_t out, bool antialias) {
  return ScaledKernelSpans(in, out, antialias, 1.0f, [](float x) { return std::max(0.0f, 1.0f - std::abs(x)); });
}

// Keys' cubic convolution kernel with a = -0.5, as TensorFlow evaluates it.
float KeysCubic(float x) {
  x = std::abs(x);
  if (x >= 2.0f) return 0.0f;
  if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
  return ((1.5f * x - 2.5f) * x) * x + 1.0f;
}

// Bicubic without antialias, as TensorFlow's ResizeBicubic (half-pixel
// centres, Keys' kernel): output x samples the input at (x + 0.5) * in /
// out - 0.5, the four inputs around it weigh the kernel's values at the
// sample's fraction rounded to 1/1024 (TensorFlow's coefficient table), and
// inputs past the edges are left out, the others' weights normalised.
Spans KeysCubicTableSpans(int64_t in, int64_t out) {
  constexpr int64_t kTableSize = 1024;
  constexpr double a = -0.5;
  // The kernel at 1/1024 steps of [0, 1] (near) and [1, 2] (far), as
  // TensorFlow's InitCoeffsTable computes them.
  const auto near = [&](int64_t i) {
    const float x = static_cast<float>(i * 1.0 / kTableSize);
    return static_cast<float>(((a + 2) * x - (a + 3)) * x * x + 1);
  };
  const auto far = [&](int64_t i) {
    const float x = static_cast<float>(i * 1.0 / kTableSize) + 1.0f;
    return static_cast<float>(((a * x - 5 * a) * x + 8 * a) * x - 4 * a);
  };
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  Spans spans;
  spans.span_size = std::min<int64_t>(4, in);
  spans.starts.resize(out);
  spans.weights.assign(out * spans.span_size, 0.0f);
  for (int64_t x = 0; x < out; ++x) {
    const float sample = (static_cast<float>(x) + 0.5f) * scale - 0.5f;
    const auto floor = static_cast<int64_t>(std::floor(sample));
    const int64_t offset = std::lrint((sample - static_cast<float>(floor)) * kTableSize);
    const float tap_weights[4] = {far(offset), near(offset), near(kTableSize - offset), far(kTableSize - offset)};
    const int64_t start = std::clamp<int64_t>(floor - 1, 0, in - 1);
    float* weights = &spans.weights[x * spans.span_size];
    float total = 0.0f;
    for (int64_t k = 0; k < 4; ++k) {
      const int64_t source = floor - 1 + k;
      if (source < 0 || source >= in) continue;
      weights[source - start] = tap_weights[k];
      total += tap_weights[k];
    }
    if (std::abs(total) >= 1000.0f * std::numeric_limits<float>::min()) {
      const float inverse = 1.0f / total;
      for (int64_t k = 0; k < spans.span_size; ++k) weights[k] *= inverse;
    }
    spans.starts[x] = start;
  }
  TrimSpans(in, spans);
  return spans;
}

// Box filter over the covered input area (TensorFlow's ResizeArea): output
// x covers [x * s, (x + 1) * s) with s = in / out; each input pixel weighs
// its overlap / s. Indices past the edge (float rounding) clamp to it.
Spans AreaSpans(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  Spans spans;
  spans.span_size = std::min<int64_t>(static_cast<int64_t>(std::ceil(scale)) + 2, in);
  spans.starts.resize(out);
  spans.weights.assign(out * spans.span_size, 0.0f);
  for (int64_t x = 0; x < out; ++x) {
    const float begin = static_cast<float>(x) * scale;
    const float end = static_cast<float>(x + 1) * scale;
    const int64_t first = static_cast<int64_t>(std::floor(begin));
    const int64_t last = static_cast<int64_t>(std::ceil(end));  // exclusive
    const int64_t start = std::clamp<int64_t>(first, 0, in - 1);
    float* weights = &spans.weights[x * spans.span_size];
    for (int64_t i = first; i < last; ++i) {
      const float lo = std::max(begin, static_cast<float>(i));
      const float hi = std::min(end, static_cast<float>(i + 1));
      const int64_t k = std::clamp<int64_t>(i, 0, in - 1) - start;
      if (k < spans.span_size) weights[k] += (hi - lo) / scale;
    }
    spans.starts[x] = start;
  }
  TrimSpans(in, spans);
  return spans;
}

Spans SpansFor(int64_t in, int64_t out, const ResizeOptions& options) {
  switch (options.method) {
    case ResizeMethod::kArea: return AreaSpans(in, out);
    case ResizeMethod::kBicubic:
      return options.antialias ? ScaledKernelSpans(in, out, true, 2.0f, KeysCubic) : KeysCubicTableSpans(in, out);
    default: return TriangleSpans(in, out, options.antialias);
  }
}

// Four floats as one SSE-width vector (GCC/Clang vector extension, no
// intrinsics): the horizontal pass's sums for 3- and 4-channel pixels, one
// lane per channel (lane 3 unused for 3 channels).
using Float4 = float __attribute__((vector_size(16)));

Float4 LoadFloat4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The number of floats ResampleRow<Channels> may read past its input row's
// last pixel (3 channels load 4-lane vectors), which the caller provides.
constexpr int64_t RowPadding(int channels) { return channels == 3 ? 1 : 0; }

// One row of float pixels through the horizontal spans: out_w pixels of
// `channels` values. Channels 3 and 4 sum whole pixels as Float4 lanes;
// Channels 1 keeps one sum in a register; 0 handles any count. Each lane
// adds the same products in the same order as the scalar loop.
//
// FixedTaps = 0: each output sums its own taps. FixedTaps > 0 (Channels 1, 3
// or 4; values known finite, converted from an integer image): every output
// sums exactly FixedTaps = xs.max_taps inputs, its trailing zero weights
// included, so that the loop's count is fixed and its branches predict (a
// count that alternates between, say, 2 and 3 taps mispredicts often). A
// zero weight times a finite value adds +0, which leaves the sum as the
// trimmed loop's. The caller pads the row with RowPaddingForTaps zeros,
// which the taps past the row's end read.
template <int Channels, int FixedTaps = 0>
void ResampleRow(const float* __restrict src, const Spans& xs, int64_t channels,
                 float* __restrict dst) {
  static_assert(FixedTaps == 0 || Channels == 1 || Channels == 3 || Channels == 4);
  const int64_t out_w = static_cast<int64_t>(xs.starts.size());
  const float* weights = xs.weights.data();
  const int64_t* starts = xs.starts.data();
  const int64_t* tap_counts = xs.taps.data();
  const int64_t span_size = xs.span_size;
  const auto taps_of = [&](int64_t x) { return FixedTaps > 0 ? FixedTaps : tap_counts[x]; };
  // A fixed count starts from its first product (the trimmed loop, from
  // zero, as it may have no taps): the same sums.
  constexpr int64_t kFirstTap = FixedTaps > 0 ? 1 : 0;
  if constexpr (Channels == 3 || Channels == 4) {
    for (int64_t x = 0; x < out_w; ++x) {
      const float* w = weights + x * span_size;
      const float* base = src + starts[x] * Channels;
      const int64_t taps = taps_of(x);
      Float4 sum = kFirstTap == 0 ? Float4{0.0f, 0.0f, 0.0f, 0.0f} : w[0] * LoadFloat4(base);
      for (int64_t k = kFirstTap; k < taps; ++k) sum += w[k] * LoadFloat4(base + k * Channels);
      // All four lanes but for the last pixel: for 3 channels the fourth
      // lands on the next pixel's first value, written next.
      std::memcpy(dst + x * Channels, &sum, x + 1 < out_w ? sizeof(sum) : Channels * sizeof(float));
    }
  } else if constexpr (Channels == 1) {
    for (int64_t x = 0; x < out_w; ++x) {
      const float* w = weights + x * span_size;
      const float* base = src + starts[x];
      const int64_t taps = taps_of(x);
      float sum = kFirstTap == 0 ? 0.0f : w[0] * base[0];
      for (int64_t k = kFirstTap; k < taps; ++k) sum += w[k] * base[k];
      dst[x] = sum;
    }
  } else {
    for (int64_t x = 0; x < out_w; ++x) {
      const float* w = weights + x * span_size;
      const float* base = src + starts[x] * channels;
      const int64_t taps = tap_counts[x];
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int64_t k = 0; k < taps; ++k) sum += w[k] * base[k * channels + c];
        dst[x * channels + c] = sum;
      }
    }
  }
}

// The zeros a row passed to the horizontal pass needs past its values, for
// `channels` and the spans' max_taps: ResampleRow's Float4 loads, and the
// taps a fixed count reads past the row's end.
int64_t RowPaddingForTaps(int64_t channels, int64_t max_taps) { return max_taps * channels + RowPadding(3); }

// The horizontal pass over one row, with a fixed count of taps where one
// applies (`finite` values, 1, 3 or 4 channels, at most 8 taps: a shrink by
// up to about 3x; wider ones take each output's own count).
template <int Channels>
void ResampleRowDispatch(const float* src, const Spans& xs, int64_t channels, bool finite, float* dst) {
  if constexpr (Channels == 1 || Channels == 3 || Channels == 4) {
    if (finite) {
      switch (xs.max_taps) {
        case 1: return ResampleRow<Channels, 1>(src, xs, channels, dst);
        case 2: return ResampleRow<Channels, 2>(src, xs, channels, dst);
        case 3: return ResampleRow<Channels, 3>(src, xs, channels, dst);
        case 4: return ResampleRow<Channels, 4>(src, xs, channels, dst);
        case 5: return ResampleRow<Channels, 5>(src, xs, channels, dst);
        case 6: return ResampleRow<Channels, 6>(src, xs, channels, dst);
        case 7: return ResampleRow<Channels, 7>(src, xs, channels, dst);
        case 8: return ResampleRow<Channels, 8>(src, xs, channels, dst);
        default: break;
      }
    }
  }
  ResampleRow<Channels>(src, xs, channels, dst);
}

// The vertical pass for one output row of n values: the weighted sum of the
// rows rows[0 .. taps) (each `pitch` values apart), one contiguous
// (vectorisable) loop per tap, converting T to float on the way.
template <typename T>
void ResampleColumn(const T* rows, int64_t n, int64_t pitch, const float* w, int64_t taps,
                    float* __restrict dst) {
  if (taps == 0) {
    std::fill(dst, dst + n, 0.0f);
    return;
  }
  const T* __restrict first = rows;
  for (int64_t i = 0; i < n; ++i) dst[i] = w[0] * static_cast<float>(first[i]);
  for (int64_t k = 1; k < taps; ++k) {
    const T* __restrict src = rows + k * pitch;
    const float weight = w[k];
    for (int64_t i = 0; i < n; ++i) dst[i] += weight * static_cast<float>(src[i]);
  }
}

// Scratch for ResampleImage, allocated once per ResizeImage call: the
// horizontal pass's rows ([in_h, out_w, C], horizontal pass first only) and
// one row of in_w pixels as float, then `row_padding` zeros
// (RowPaddingForTaps).
struct ResampleScratch {
  float* rows = nullptr;
  float* row = nullptr;
  int64_t row_padding = 0;
};

// Whether ResampleImage runs the vertical pass first: when it shrinks the
// height, so the horizontal pass (the costlier one per value) sees out_h
// rows instead of in_h.
bool VerticalFirst(int64_t in_h, int64_t out_h) { return out_h < in_h; }

// One image [in_h, in_w, C] of T, its rows `in_pitch` values apart, to float
// [out_h, out_w, C] by a vertical and a horizontal pass, in the order
// VerticalFirst picks. Vertical first:
// each output row's input rows summed into scratch.row, then resampled
// across into the output. Horizontal first: each input row (converted to
// float once) resampled across into scratch.rows, then each output row summed
// from those.
template <int Channels, typename T>
void ResampleImage(const T* in, int64_t in_h, int64_t in_w, int64_t in_pitch, int64_t channels,
                   const Spans& xs, const Spans& ys, const ResampleScratch& scratch, float* out) {
  const int64_t out_w = static_cast<int64_t>(xs.starts.size());
  const int64_t out_h = static_cast<int64_t>(ys.starts.size());
  const int64_t in_row = in_w * channels;
  const int64_t out_row = out_w * channels;
  std::fill(scratch.row + in_row, scratch.row + in_row + scratch.row_padding, 0.0f);
  // Values converted from integers are finite (ResampleRowDispatch).
  constexpr bool kFinite = std::is_integral_v<T>;
  if (VerticalFirst(in_h, out_h)) {
    for (int64_t y = 0; y < out_h; ++y) {
      ResampleColumn(in + ys.starts[y] * in_pitch, in_row, in_pitch, &ys.weights[y * ys.span_size], ys.taps[y],
                     scratch.row);
      ResampleRowDispatch<Channels>(scratch.row, xs, channels, kFinite, out + y * out_row);
    }
    return;
  }
  for (int64_t y = 0; y < in_h; ++y) {
    const T* src = in + y * in_pitch;
    const float* row;
    if constexpr (std::is_same_v<T, float> && RowPadding(Channels) == 0) {
      row = src;
    } else {
      for (int64_t i = 0; i < in_row; ++i) scratch.row[i] = static_cast<float>(src[i]);
      row = scratch.row;
    }
    ResampleRowDispatch<Channels>(row, xs, channels, kFinite, scratch.rows + y * out_row);
  }
  for (int64_t y = 0; y < out_h; ++y) {
    ResampleColumn(scratch.rows + ys.starts[y] * out_row, out_row, out_row, &ys.weights[y * ys.span_size],
                   ys.taps[y], out + y * out_row);
  }
}

// min(floor((x + 0.5) * in / out), in - 1) in float, as ResizeNearestNeighbor
// with half-pixel centres.
std::vector<int64_t> NearestIndices(int64_t in, int64_t out) {
  const float scale = static_cast<float>(in) / static_cast<float>(out);
  std::vector<int64_t> indices(out);
  for (int64_t x = 0; x < out; ++x) {
    const auto i = static_cast<int64_t>(std::floor((static_cast<float>(x) + 0.5f) * scale));
    indices[x] = std::clamp<int64_t>(i, 0, in - 1);
  }
  return indices;
}

// One image's rows `pitch` bytes apart.
void NearestImage(const char* in, int64_t pitch, int64_t pixel_bytes, const std::vector<int64_t>& ys,
                  const std::vector<int64_t>& xs, char* out) {
  WithPixelCopy(static_cast<size_t>(pixel_bytes), [&](auto copy_pixel) {
    for (int64_t y : ys) {
      const char* row = in + y * pitch;
      for (int64_t x : xs) {
        copy_pixel(out, row + x * pixel_bytes);
        out += pixel_bytes;
      }
    }
  });
}

// ResizeImage of `window` of each of `images` (dims `dims`), read in place.
// REQUIRES: options checked and the window non-empty and inside the images.
Result<Tensor> ResizeCheckedWindow(const Tensor& images, const ImageDims& dims, const CropWindow& window,
                                   const ResizeOptions& options) {
  const bool batched = dims.batched;
  const int64_t n = dims.batch, in_h = window.height, in_w = window.width, channels = dims.channels;
  // Values from one row of an image to the next, from one image to the
  // next, and from an image's start to its window's.
  const int64_t pitch = dims.width * channels, image_values = dims.height * pitch;
  const int64_t window_offset = window.top * pitch + window.left * channels;
  const Shape out_shape = batched ? Shape{n, options.height, options.width, channels}
                                  : Shape{options.height, options.width, channels};
  Tensor::AllocateOptions allocate;
  allocate.fill = Buffer::Fill::kUninitialized;
  SLUICE_ASSIGN_OR_RETURN(
      Tensor out,
      Tensor::TryAllocate(ResizeOutputDType(images.dtype(), options.method), out_shape, allocate));
  if (out.NumElements() == 0) return out;

  if (options.method == ResizeMethod::kNearest) {
    const std::vector<int64_t> ys = NearestIndices(in_h, options.height);
    const std::vector<int64_t> xs = NearestIndices(in_w, options.width);
    const auto value_bytes = static_cast<int64_t>(DTypeSize(images.dtype()));
    const int64_t pixel_bytes = channels * value_bytes;
    const auto* in = static_cast<const char*>(images.raw_data()) + window_offset * value_bytes;
    auto* dst = static_cast<char*>(out.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      NearestImage(in + i * image_values * value_bytes, pitch * value_bytes, pixel_bytes, ys, xs,
                   dst + i * options.height * options.width * pixel_bytes);
    }
    return out;
  }
  const Spans xs = SpansFor(in_w, options.width, options);
  const Spans ys = SpansFor(in_h, options.height, options);
  // The horizontal pass's rows: bounded like any tensor, since its size
  // mixes the input's height with the requested width.
  const int64_t rows_height = VerticalFirst(in_h, options.height) ? 0 : in_h;
  SLUICE_ASSIGN_OR_RETURN(
      Tensor rows, Tensor::TryAllocate(DType::kFloat32, Shape{rows_height, options.width, channels}, allocate));
  const int64_t row_padding = RowPaddingForTaps(channels, xs.max_taps);
  SLUICE_ASSIGN_OR_RETURN(Tensor row,
                          Tensor::TryAllocate(DType::kFloat32, Shape{in_w * channels + row_padding}, allocate));
  // The padding is read into lanes that are never stored, or times zero
  // weights; zero, it holds no NaN.
  const ResampleScratch scratch{
      .rows = rows.mutable_data<float>(), .row = row.mutable_data<float>(), .row_padding = row_padding};
  float* dst = out.mutable_data<float>();
  VisitNumericDType(images.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* in = images.data<T>();
    const auto resample = [&](auto channels_constant) {
      for (int64_t i = 0; i < n; ++i) {
        ResampleImage<decltype(channels_constant)::value>(
            in + i * image_values + window_offset, in_h, in_w, pitch, channels, xs, ys, scratch,
            dst + i * options.height * options.width * channels);
      }
    };
    switch (channels) {
      case 1: resample(std::integral_constant<int, 1>{}); break;
      case 3: resample(std::integral_constant<int, 3>{}); break;
      case 4: resample(std::integral_constant<int, 4>{}); break;
      default: resample(std::integral_constant<int, 0>{}); break;
    }
  });
  return out;
}

}  // namespace

std::string_view ResizeMethodName(ResizeMethod method) {
  switch (method) {
    case ResizeMethod::kBilinear: return "bilinear";
    case ResizeMethod::kNearest: return "nearest";
    case ResizeMethod::kArea: return "area";
    case ResizeMethod::kBicubic: return "bicubic";
  }
  return "?";
}

Result<ResizeMethod> ParseResizeMethod(std::string_view name) {
  for (ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kNearest, ResizeMethod::kArea,
                              ResizeMethod::kBicubic}) {
    if (name == ResizeMethodName(method)) return method;
  }
  return InvalidArgumentError("unknown resize method '", name, "' (expected bilinear, nearest, area or bicubic)");
}

DType ResizeOutputDType(DType dtype, ResizeMethod method) {
  return method == ResizeMethod::kNearest ? dtype : DType::kFloat32;
}

Status CheckResizeOptions(const ResizeOptions& options) {
  if (options.height <= 0 || options.width <= 0) {
    return InvalidArgumentError("size must be positive, got [", options.height, ", ", options.width,
                                "]");
  }
  return OkStatus();
}

Result<Tensor> ResizeImage(const Tensor& images, const ResizeOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckResizeOptions(options));
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  if (dims.height == 0 || dims.width == 0) {
    return InvalidArgumentError("cannot resize an empty image of shape ", images.shape());
  }
  return ResizeCheckedWindow(images, dims, {.top = 0, .left = 0, .height = dims.height, .width = dims.width},
                             options);
}

Result<Tensor> ResizeImageWindow(const Tensor& images, const CropWindow& window, const ResizeOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckResizeOptions(options));
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  SLUICE_RETURN_IF_ERROR(CheckWindowInside(window, dims.height, dims.width));
  return ResizeCheckedWindow(images, dims, window, options);
}

}  // namespace sluice

#include "sluice/ops/resize_image.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sluice/ops/image_size.h"

namespace sluice {
namespace {

// The input coordinates and weights behind each output coordinate of one
// axis: output i reads inputs [starts[i], starts[i] + span_size) with
// weights[i * span_size ...] (zero past its own span).
struct Spans {
  int64_t span_size = 0;
  std::vector<int64_t> starts;
  std::vector<float> weights;
};

// The triangle kernel at half-pixel centres, widened by in / out when
// shrinking with antialias (TensorFlow's ScaleAndTranslate, ComputeSpansCore),
// weights normalised per output. Without antialias these are exactly the two
// linear-interpolation weights of ResizeBilinear, with the edges clamped.
Spans TriangleSpans(int64_t in, int64_t out, bool antialias) {
  const float scale = static_cast<float>(out) / static_cast<float>(in);
  const float inv_scale = 1.0f / scale;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.0f) : 1.0f;
  const float radius = kernel_scale;  // the triangle's radius is 1
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
      const float position = (static_cast<float>(source) + 0.5f - sample) / kernel_scale;
      const float weight = std::max(0.0f, 1.0f - std::abs(position));
      weights[source - start] = weight;
      total += weight;
    }
    if (total > 0.0f) {
      for (int64_t k = 0; k < end - start; ++k) weights[k] /= total;
    }
    spans.starts[x] = start;
  }
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
  return spans;
}

Spans SpansFor(int64_t in, int64_t out, const ResizeOptions& options) {
  return options.method == ResizeMethod::kArea ? AreaSpans(in, out)
                                               : TriangleSpans(in, out, options.antialias);
}

// One image [in_h, in_w, C] of T to float [out_h, out_w, C]: the horizontal
// pass into `rows` ([in_h, out_w, C]), then the vertical one.
template <typename T>
void ResampleImage(const T* in, int64_t in_h, int64_t in_w, int64_t channels, const Spans& xs,
                   const Spans& ys, float* rows, float* out) {
  const int64_t out_w = static_cast<int64_t>(xs.starts.size());
  const int64_t out_h = static_cast<int64_t>(ys.starts.size());
  const int64_t out_row = out_w * channels;
  for (int64_t y = 0; y < in_h; ++y) {
    const T* src = in + y * in_w * channels;
    float* dst = rows + y * out_row;
    for (int64_t x = 0; x < out_w; ++x) {
      const float* w = &xs.weights[x * xs.span_size];
      const T* base = src + xs.starts[x] * channels;
      const int64_t taps = std::min(xs.span_size, in_w - xs.starts[x]);
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0.0f;
        for (int64_t k = 0; k < taps; ++k) sum += w[k] * static_cast<float>(base[k * channels + c]);
        dst[x * channels + c] = sum;
      }
    }
  }
  for (int64_t y = 0; y < out_h; ++y) {
    float* dst = out + y * out_row;
    std::fill(dst, dst + out_row, 0.0f);
    const float* w = &ys.weights[y * ys.span_size];
    const int64_t taps = std::min(ys.span_size, in_h - ys.starts[y]);
    for (int64_t k = 0; k < taps; ++k) {
      if (w[k] == 0.0f) continue;
      const float* src = rows + (ys.starts[y] + k) * out_row;
      for (int64_t i = 0; i < out_row; ++i) dst[i] += w[k] * src[i];
    }
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

void NearestImage(const char* in, int64_t in_w, int64_t pixel_bytes, const std::vector<int64_t>& ys,
                  const std::vector<int64_t>& xs, char* out) {
  for (int64_t y : ys) {
    const char* row = in + y * in_w * pixel_bytes;
    for (int64_t x : xs) {
      std::memcpy(out, row + x * pixel_bytes, pixel_bytes);
      out += pixel_bytes;
    }
  }
}

}  // namespace

std::string_view ResizeMethodName(ResizeMethod method) {
  switch (method) {
    case ResizeMethod::kBilinear: return "bilinear";
    case ResizeMethod::kNearest: return "nearest";
    case ResizeMethod::kArea: return "area";
  }
  return "?";
}

Result<ResizeMethod> ParseResizeMethod(std::string_view name) {
  for (ResizeMethod method : {ResizeMethod::kBilinear, ResizeMethod::kNearest, ResizeMethod::kArea}) {
    if (name == ResizeMethodName(method)) return method;
  }
  return InvalidArgumentError("unknown resize method '", name, "' (expected bilinear, nearest or area)");
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
  const bool batched = dims.batched;
  const int64_t n = dims.batch, in_h = dims.height, in_w = dims.width, channels = dims.channels;
  if (in_h == 0 || in_w == 0) {
    return InvalidArgumentError("cannot resize an empty image of shape ", images.shape());
  }
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
    const int64_t pixel_bytes = channels * static_cast<int64_t>(DTypeSize(images.dtype()));
    const auto* in = static_cast<const char*>(images.raw_data());
    auto* dst = static_cast<char*>(out.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      NearestImage(in + i * in_h * in_w * pixel_bytes, in_w, pixel_bytes, ys, xs,
                   dst + i * options.height * options.width * pixel_bytes);
    }
    return out;
  }

  const Spans xs = SpansFor(in_w, options.width, options);
  const Spans ys = SpansFor(in_h, options.height, options);
  // The horizontal pass's rows: bounded like any tensor, since its size
  // mixes the input's height with the requested width.
  SLUICE_ASSIGN_OR_RETURN(
      Tensor rows, Tensor::TryAllocate(DType::kFloat32, Shape{in_h, options.width, channels}, allocate));
  float* dst = out.mutable_data<float>();
  VisitNumericDType(images.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* in = images.data<T>();
    for (int64_t i = 0; i < n; ++i) {
      ResampleImage(in + i * in_h * in_w * channels, in_h, in_w, channels, xs, ys,
                    rows.mutable_data<float>(), dst + i * options.height * options.width * channels);
    }
  });
  return out;
}

}  // namespace sluice

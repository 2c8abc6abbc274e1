#include "sluice/ops/mixup.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sluice/ops/counter_rng.h"

namespace sluice {

// Gamma(alpha), alpha > 0, by Marsaglia and Tsang (alpha < 1 through
// Gamma(alpha + 1) * U^(1 / alpha)), from uniform draws k, k + 1, ...: at
// most 3 per attempt, 64 attempts (each accepted with probability > 0.95),
// then one more. After 64 rejections (never seen) the mean, alpha.
double DrawGamma(double alpha, const UniformStream& uniform, int64_t k) {
  const double a = alpha < 1 ? alpha + 1 : alpha;
  const double d = a - 1.0 / 3, c = 1 / std::sqrt(9 * d);
  double gamma = alpha;
  for (int attempt = 0; attempt < 64; ++attempt, k += 3) {
    const double z = StandardNormal(uniform(k), uniform(k + 1));
    const double v = std::pow(1 + c * z, 3);
    if (1 + c * z <= 0) continue;
    if (std::log1p(-uniform(k + 2)) < 0.5 * z * z + d - d * v + d * std::log(v)) {
      gamma = d * v;
      break;
    }
  }
  if (alpha < 1) gamma *= std::pow(1 - uniform(k + 3), 1 / alpha);
  return gamma;
}

double DrawSymmetricBeta(double alpha, const UniformStream& uniform, int64_t first) {
  const double x = DrawGamma(alpha, uniform, first), y = DrawGamma(alpha, uniform, first + 1024);
  return x + y > 0 ? x / (x + y) : 0.5;
}

Result<Tensor> MixBatchImages(const Tensor& batch, double lam) {
  if (batch.dtype() != DType::kFloat32 || batch.rank() < 1) {
    return InvalidArgumentError("mixup: expected a float32 batch, got ", batch.dtype(), batch.shape());
  }
  const int64_t n = batch.dim(0), row = n == 0 ? 0 : batch.NumElements() / n;
  Tensor out = Tensor::AllocateUninitialized(DType::kFloat32, batch.shape());
  const auto a = static_cast<float>(lam), b = static_cast<float>(1 - lam);
  const float* in = batch.data<float>();
  float* dst = out.mutable_data<float>();
  for (int64_t i = 0; i < n; ++i) {
    const float* x = in + i * row;
    const float* flipped = in + (n - 1 - i) * row;
    float* y = dst + i * row;
    for (int64_t k = 0; k < row; ++k) y[k] = x[k] * a + flipped[k] * b;
  }
  return out;
}

CropWindow CutmixWindow(int64_t height, int64_t width, double lam, double u_y, double u_x) {
  const double ratio = std::sqrt(std::clamp(1 - lam, 0.0, 1.0));
  const auto cut_h = static_cast<int64_t>(static_cast<double>(height) * ratio);
  const auto cut_w = static_cast<int64_t>(static_cast<double>(width) * ratio);
  const int64_t cy = UniformIndex(u_y, height), cx = UniformIndex(u_x, width);
  const int64_t top = std::clamp<int64_t>(cy - cut_h / 2, 0, height);
  const int64_t bottom = std::clamp<int64_t>(cy + cut_h / 2, 0, height);
  const int64_t left = std::clamp<int64_t>(cx - cut_w / 2, 0, width);
  const int64_t right = std::clamp<int64_t>(cx + cut_w / 2, 0, width);
  return CropWindow{.top = top, .left = left, .height = bottom - top, .width = right - left};
}

Result<Tensor> PasteFlippedWindow(const Tensor& batch, const CropWindow& window, ImageLayout layout) {
  if (batch.dtype() != DType::kFloat32 || batch.rank() != 4) {
    return InvalidArgumentError("cutmix: expected a float32 batch of images ",
                                layout == ImageLayout::kCHW ? "[N, C, H, W]" : "[N, H, W, C]", ", got ", batch.dtype(),
                                batch.shape());
  }
  const bool chw = layout == ImageLayout::kCHW;
  const int64_t n = batch.dim(0), planes = chw ? batch.dim(1) : 1;
  const int64_t height = batch.dim(chw ? 2 : 1), width = batch.dim(chw ? 3 : 2);
  const int64_t pixel = chw ? 1 : batch.dim(3);  // values per pixel within a plane
  if (window.top < 0 || window.left < 0 || window.height < 0 || window.width < 0 ||
      window.top + window.height > height || window.left + window.width > width) {
    return InvalidArgumentError("cutmix: window ", window.height, "x", window.width, " at (", window.top, ", ",
                                window.left, ") is not inside the image of ", height, "x", width);
  }
  Tensor out = Tensor::AllocateUninitialized(DType::kFloat32, batch.shape());
  const int64_t image = batch.NumElements() / std::max<int64_t>(n, 1);
  const float* in = batch.data<float>();
  float* dst = out.mutable_data<float>();
  std::memcpy(dst, in, static_cast<size_t>(batch.NumElements()) * sizeof(float));
  const int64_t row = width * pixel, plane = height * row;
  const size_t span = static_cast<size_t>(window.width * pixel) * sizeof(float);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t y = window.top; y < window.top + window.height; ++y) {
        const int64_t offset = p * plane + y * row + window.left * pixel;
        std::memcpy(dst + i * image + offset, in + (n - 1 - i) * image + offset, span);
      }
    }
  }
  return out;
}

Result<Tensor> MixBatchLabels(const Tensor& labels, int64_t num_classes, double smoothing, double lam) {
  if (!(smoothing >= 0 && smoothing < 1)) {
    return InvalidArgumentError("mixup: label smoothing must be in [0, 1), got ", smoothing);
  }
  Tensor rows;
  if (labels.dtype() == DType::kFloat32 && labels.rank() == 2) {
    if (num_classes != 0 && labels.dim(1) != num_classes) {
      return InvalidArgumentError("mixup: label rows of ", labels.dim(1), " classes; expected ", num_classes);
    }
    rows = labels;
  } else if ((labels.dtype() == DType::kInt64 || labels.dtype() == DType::kInt32) && labels.rank() == 1) {
    if (num_classes <= 0) return InvalidArgumentError("mixup: class id labels need num_classes > 0");
    SLUICE_ASSIGN_OR_RETURN(rows, Tensor::TryAllocate(DType::kFloat32, Shape{labels.dim(0), num_classes},
                                                      {.fill = Buffer::Fill::kUninitialized}));
    const auto off = static_cast<float>(smoothing / static_cast<double>(num_classes));
    const auto on = static_cast<float>(1 - smoothing + smoothing / static_cast<double>(num_classes));
    float* dst = rows.mutable_data<float>();
    for (int64_t i = 0; i < labels.dim(0); ++i) {
      const int64_t id = labels.dtype() == DType::kInt64 ? labels.data<int64_t>()[i] : labels.data<int32_t>()[i];
      if (id < 0 || id >= num_classes) {
        return InvalidArgumentError("mixup: label ", id, " of row ", i, " is not a class id in [0, ", num_classes, ")");
      }
      std::fill_n(dst + i * num_classes, num_classes, off);
      dst[i * num_classes + id] = on;
    }
  } else {
    return InvalidArgumentError("mixup: expected labels of int32 or int64 class ids [N] or float32 rows [N, K], got ",
                                labels.dtype(), labels.shape());
  }
  return MixBatchImages(rows, lam);
}

}  // namespace sluice

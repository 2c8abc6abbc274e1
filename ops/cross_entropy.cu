// CUDA kernels of the fused losses and their backward ops
// (ops/cross_entropy.cc): sparse softmax cross-entropy one block per row,
// sigmoid cross-entropy elementwise, mean squared error one thread per row
// (forward) or per element (backward). Same formulas as the CPU kernels;
// labels are checked on the device first, with the CPU kernel's error.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

constexpr std::string_view kSparseName = "sparse_softmax_cross_entropy_with_logits";

// loss = log(sum(exp(x - max))) - (x[label] - max).
template <typename T>
__global__ void SparseLossKernel(const void* labels, bool labels_int32, const T* logits, T* loss, int64_t classes) {
  const T* x = logits + blockIdx.x * classes;
  const RowStats<T> stats = ComputeRowStats(x, classes);
  if (threadIdx.x == 0) {
    loss[blockIdx.x] = Log(stats.sum) - (x[LoadIndex(labels, labels_int32, blockIdx.x)] - stats.max);
  }
}

// dx = g * (softmax(x) - one_hot(label)).
template <typename T>
__global__ void SparseLossGradKernel(const void* labels, bool labels_int32, const T* logits, const T* g, T* dx,
                                     int64_t classes) {
  const T* x = logits + blockIdx.x * classes;
  T* out = dx + blockIdx.x * classes;
  const RowStats<T> stats = ComputeRowStats(x, classes);
  const T scale = T(1) / stats.sum, row_g = g[blockIdx.x];
  const int64_t label = LoadIndex(labels, labels_int32, blockIdx.x);
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const T p = Exp(x[c] - stats.max) * scale;
    out[c] = (c == label ? p - T(1) : p) * row_g;
  }
}

Status CheckLabels(const Tensor& labels, int64_t classes, cudaStream_t stream) {
  SLUICE_ASSIGN_OR_RETURN(std::optional<BadIndex> bad, FindIndexOutOfRange(labels, classes, stream));
  if (!bad) return OkStatus();
  return InvalidArgumentError(kSparseName, ": label ", bad->value, " in row ", bad->position,
                              " is outside the valid range [0, ", classes, ")");
}

template <bool kGrad>
Status SparseLoss(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& labels = inputs[0];
  const Tensor& logits = inputs[1];
  const int64_t rows = logits.dim(0), classes = logits.dim(1);
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(logits));
  SLUICE_RETURN_IF_ERROR(CheckLabels(labels, classes, launch.stream));
  if (rows == 0 || classes == 0) return OkStatus();
  const bool int32 = labels.dtype() == DType::kInt32;
  VisitFloating(logits.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kGrad) {
      SparseLossGradKernel<<<rows, RowBlockThreads(classes), 0, launch.stream>>>(
          labels.raw_data(), int32, logits.data<T>(), inputs[2].data<T>(), outputs[0].mutable_data<T>(), classes);
    } else {
      SparseLossKernel<<<rows, RowBlockThreads(classes), 0, launch.stream>>>(labels.raw_data(), int32, logits.data<T>(),
                                                                         outputs[0].mutable_data<T>(), classes);
    }
  });
  return LaunchStatus("sparse softmax cross-entropy kernel");
}

// max(x, 0) - x z + log(1 + exp(-|x|)).
template <typename T>
__global__ void SigmoidLossKernel(const T* z, const T* x, T* loss, int64_t n) {
  SLUICE_CUDA_FOR_EACH(i, n) loss[i] = (x[i] > T(0) ? x[i] : T(0)) - x[i] * z[i] + Log1p(Exp(-Abs(x[i])));
}

// g * (sigmoid(x) - z), with sigmoid from exp(-|x|).
template <typename T>
__global__ void SigmoidLossGradKernel(const T* z, const T* x, const T* g, T* dx, int64_t n) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    const T e = Exp(-Abs(x[i]));
    const T sigmoid = x[i] >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e);
    dx[i] = g[i] * (sigmoid - z[i]);
  }
}

// mean((p - l)^2) over each row of `depth`.
template <typename T>
__global__ void SquaredLossKernel(const T* l, const T* p, T* loss, int64_t rows, int64_t depth) {
  SLUICE_CUDA_FOR_EACH(r, rows) {
    T sum = 0;
    for (int64_t k = r * depth; k < (r + 1) * depth; ++k) sum += (p[k] - l[k]) * (p[k] - l[k]);
    loss[r] = sum / static_cast<T>(depth);
  }
}

// d/dp = g * 2 (p - l) / depth.
template <typename T>
__global__ void SquaredLossGradKernel(const T* l, const T* p, const T* g, T* dp, int64_t n, int64_t depth) {
  const T scale = T(2) / static_cast<T>(depth);
  SLUICE_CUDA_FOR_EACH(k, n) dp[k] = g[k / depth] * scale * (p[k] - l[k]);
}

template <bool kGrad>
Status SigmoidLoss(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t n = outputs[0].NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(outputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kGrad) {
      SigmoidLossGradKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
          inputs[0].data<T>(), inputs[1].data<T>(), inputs[2].data<T>(), outputs[0].mutable_data<T>(), n);
    } else {
      SigmoidLossKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(inputs[0].data<T>(), inputs[1].data<T>(),
                                                                         outputs[0].mutable_data<T>(), n);
    }
  });
  return LaunchStatus("sigmoid cross-entropy kernel");
}

template <bool kGrad>
Status SquaredLoss(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t depth = inputs[1].dim(inputs[1].rank() - 1);
  const int64_t n = outputs[0].NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(outputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (kGrad) {
      SquaredLossGradKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
          inputs[0].data<T>(), inputs[1].data<T>(), inputs[2].data<T>(), outputs[0].mutable_data<T>(), n, depth);
    } else {
      SquaredLossKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(inputs[0].data<T>(), inputs[1].data<T>(),
                                                                         outputs[0].mutable_data<T>(), n, depth);
    }
  });
  return LaunchStatus("mean squared error kernel");
}

}  // namespace

void RegisterCrossEntropyCudaKernels(OpRegistry& registry) {
  registry.SetKernel(kSparseName, DeviceType::kCuda, SparseLoss<false>);
  registry.SetKernel("sparse_softmax_cross_entropy_with_logits_grad", DeviceType::kCuda, SparseLoss<true>);
  registry.SetKernel("sigmoid_cross_entropy_with_logits", DeviceType::kCuda, SigmoidLoss<false>);
  registry.SetKernel("sigmoid_cross_entropy_with_logits_grad", DeviceType::kCuda, SigmoidLoss<true>);
  registry.SetKernel("mean_squared_error", DeviceType::kCuda, SquaredLoss<false>);
  registry.SetKernel("mean_squared_error_grad", DeviceType::kCuda, SquaredLoss<true>);
}

}  // namespace sluice

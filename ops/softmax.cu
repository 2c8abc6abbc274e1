// CUDA kernels of softmax, log_softmax and their backward ops
// (ops/softmax.cc): one block per row of the last dimension, with
// block-wide max and sum reductions; same formulas as the CPU kernels.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__global__ void SoftmaxKernel(const T* x, T* y, int64_t n) {
  x += blockIdx.x * n;
  y += blockIdx.x * n;
  const RowStats<T> stats = ComputeRowStats(x, n);
  const T scale = T(1) / stats.sum;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = Exp(x[i] - stats.max) * scale;
}

template <typename T>
__global__ void LogSoftmaxKernel(const T* x, T* y, int64_t n) {
  x += blockIdx.x * n;
  y += blockIdx.x * n;
  const RowStats<T> stats = ComputeRowStats(x, n);
  const T log_sum = Log(stats.sum);
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) y[i] = x[i] - stats.max - log_sum;
}

// dx = y * (g - sum(g * y)).
template <typename T>
__global__ void SoftmaxGradKernel(const T* g, const T* y, T* dx, int64_t n) {
  const int64_t offset = blockIdx.x * n;
  T dot = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) dot += g[offset + i] * y[offset + i];
  dot = BlockReduce(dot, SumOf{}, T(0));
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) dx[offset + i] = y[offset + i] * (g[offset + i] - dot);
}

// dx = g - exp(y) * sum(g).
template <typename T>
__global__ void LogSoftmaxGradKernel(const T* g, const T* y, T* dx, int64_t n) {
  const int64_t offset = blockIdx.x * n;
  T sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += g[offset + i];
  sum = BlockReduce(sum, SumOf{}, T(0));
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) dx[offset + i] = g[offset + i] - Exp(y[offset + i]) * sum;
}

enum class RowFn { kSoftmax, kLogSoftmax, kSoftmaxGrad, kLogSoftmaxGrad };

template <RowFn kFn>
Status RowKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t n = inputs[0].dim(inputs[0].rank() - 1);
  if (n == 0 || inputs[0].NumElements() == 0) return OkStatus();
  const auto rows = static_cast<unsigned>(inputs[0].NumElements() / n);
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* a = inputs[0].data<T>();
    T* out = outputs[0].mutable_data<T>();
    const unsigned threads = RowBlockThreads(n);
    if constexpr (kFn == RowFn::kSoftmax) {
      SoftmaxKernel<<<rows, threads, 0, launch.stream>>>(a, out, n);
    } else if constexpr (kFn == RowFn::kLogSoftmax) {
      LogSoftmaxKernel<<<rows, threads, 0, launch.stream>>>(a, out, n);
    } else if constexpr (kFn == RowFn::kSoftmaxGrad) {
      SoftmaxGradKernel<<<rows, threads, 0, launch.stream>>>(a, inputs[1].data<T>(), out, n);
    } else {
      LogSoftmaxGradKernel<<<rows, threads, 0, launch.stream>>>(a, inputs[1].data<T>(), out, n);
    }
  });
  return LaunchStatus("softmax row kernel");
}

}  // namespace

void RegisterSoftmaxCudaKernels(OpRegistry& registry) {
  registry.SetKernel("softmax", DeviceType::kCuda, RowKernel<RowFn::kSoftmax>);
  registry.SetKernel("log_softmax", DeviceType::kCuda, RowKernel<RowFn::kLogSoftmax>);
  registry.SetKernel("softmax_grad", DeviceType::kCuda, RowKernel<RowFn::kSoftmaxGrad>);
  registry.SetKernel("log_softmax_grad", DeviceType::kCuda, RowKernel<RowFn::kLogSoftmaxGrad>);
}

}  // namespace sluice

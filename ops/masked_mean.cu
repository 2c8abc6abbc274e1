// CUDA kernels of masked_mean and masked_mean_grad (ops/masked_mean.cc):
// one thread per output element, each summing over the time steps with the
// CPU kernel's weights mask[n, t] / sum_t mask[n, t] (0 for an empty row).
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__device__ T InverseCount(const T* mask_row, int64_t steps) {
  T count = 0;
  for (int64_t t = 0; t < steps; ++t) count += mask_row[t];
  return count == T(0) ? T(0) : T(1) / count;
}

// out[n, d] = sum_t mask[n, t] * scale(n) * values[n, t, d].
template <typename T>
__global__ void MaskedMeanKernel(const T* values, const T* mask, T* out, int64_t rows, int64_t steps, int64_t depth) {
  SLUICE_CUDA_FOR_EACH(i, rows * depth) {
    const int64_t n = i / depth, d = i % depth;
    const T scale = InverseCount(mask + n * steps, steps);
    T sum = 0;
    for (int64_t t = 0; t < steps; ++t) {
      const T weight = mask[n * steps + t] * scale;
      if (weight != T(0)) sum += weight * values[(n * steps + t) * depth + d];
    }
    out[i] = sum;
  }
}

// dvalues[n, t, d] = g[n, d] * mask[n, t] * scale(n).
template <typename T>
__global__ void MaskedMeanGradKernel(const T* mask, const T* g, T* dvalues, int64_t total, int64_t steps,
                                     int64_t depth) {
  SLUICE_CUDA_FOR_EACH(i, total) {
    const int64_t d = i % depth, t = (i / depth) % steps, n = i / (depth * steps);
    dvalues[i] = mask[n * steps + t] * InverseCount(mask + n * steps, steps) * g[n * depth + d];
  }
}

Status MaskedMean(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& values = inputs[0];
  const int64_t rows = values.dim(0), steps = values.dim(1), depth = values.dim(2);
  if (rows * depth == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(values.dtype(), [&](auto zero) {
    using T = decltype(zero);
    MaskedMeanKernel<<<GridFor(rows * depth), kCudaThreads, 0, launch.stream>>>(
        values.data<T>(), inputs[1].data<T>(), outputs[0].mutable_data<T>(), rows, steps, depth);
  });
  return LaunchStatus("MaskedMeanKernel");
}

Status MaskedMeanGrad(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t total = outputs[0].NumElements();
  if (total == 0) return OkStatus();
  const int64_t steps = inputs[0].dim(1), depth = inputs[1].dim(1);
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(inputs[1].dtype(), [&](auto zero) {
    using T = decltype(zero);
    MaskedMeanGradKernel<<<GridFor(total), kCudaThreads, 0, launch.stream>>>(
        inputs[0].data<T>(), inputs[1].data<T>(), outputs[0].mutable_data<T>(), total, steps, depth);
  });
  return LaunchStatus("MaskedMeanGradKernel");
}

}  // namespace

void RegisterMaskedMeanCudaKernels(OpRegistry& registry) {
  registry.SetKernel("masked_mean", DeviceType::kCuda, MaskedMean);
  registry.SetKernel("masked_mean_grad", DeviceType::kCuda, MaskedMeanGrad);
}

}  // namespace sluice

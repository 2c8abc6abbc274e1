// CUDA kernels of ones_like and zeros_like (ops/fill.cc), for every numeric
// dtype: zeros as a memset, ones as the dtype's bit pattern of 1.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__global__ void FillKernel(T* out, int64_t n, T value) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = value;
}

Status ZerosLike(std::span<const Tensor>, const OpAttrs&, std::span<Tensor> outputs) {
  if (outputs[0].NumBytes() == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(outputs[0].raw_data(), 0, outputs[0].NumBytes(), launch.stream));
  return OkStatus();
}

Status OnesLike(std::span<const Tensor>, const OpAttrs&, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int64_t n = out.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  // The host converts 1 to the dtype once (Float16 and BFloat16 included);
  // the kernel copies its bits.
  VisitNumericDType(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    FillKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(out.mutable_data<T>(), n, ConvertValue<T>(1));
  });
  return LaunchStatus("FillKernel");
}

}  // namespace

void RegisterFillCudaKernels(OpRegistry& registry) {
  registry.SetKernel("ones_like", DeviceType::kCuda, OnesLike);
  registry.SetKernel("zeros_like", DeviceType::kCuda, ZerosLike);
}

}  // namespace sluice

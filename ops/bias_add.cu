// CUDA kernel of bias_add (ops/bias_add.cc): out[r, c] = value[r, c] + bias[c].
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__global__ void BiasAddKernel(const T* value, const T* bias, T* out, int64_t n, int64_t channels) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = value[i] + bias[i % channels];
}

Status BiasAdd(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t channels = inputs[1].NumElements();
  const int64_t n = outputs[0].NumElements();
  if (channels == 0 || n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(outputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    BiasAddKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(inputs[0].data<T>(), inputs[1].data<T>(),
                                                                   outputs[0].mutable_data<T>(), n, channels);
  });
  return LaunchStatus("BiasAddKernel");
}

}  // namespace

void RegisterBiasAddCudaKernels(OpRegistry& registry) { registry.SetKernel("bias_add", DeviceType::kCuda, BiasAdd); }

}  // namespace sluice

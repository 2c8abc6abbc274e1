// CUDA kernel of dropout (ops/dropout.cc). The mask comes from the same
// counter-based generator as the CPU kernel (ops/counter_rng.h, computed in
// the kernel), so a seed gives the same mask on either device.
#include <bit>

#include "sluice/ops/counter_rng.h"
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

template <typename T>
__global__ void DropoutKernel(const T* x, T* y, T* mask, int64_t n, double rate, uint64_t seed_state, T keep_scale) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    const T m = rate == 0 || UniformAt(seed_state, i) >= rate ? keep_scale : T(0);
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

Status Dropout(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const int64_t n = inputs[0].NumElements();
  if (n == 0) return OkStatus();
  const double rate = attrs.GetFloat("rate");
  const uint64_t seed_state = Mix64(std::bit_cast<uint64_t>(attrs.GetInt("seed")));
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    DropoutKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
        inputs[0].data<T>(), outputs[0].mutable_data<T>(), outputs[1].mutable_data<T>(), n, rate, seed_state,
        static_cast<T>(1 / (1 - rate)));
  });
  return LaunchStatus("DropoutKernel");
}

}  // namespace

void RegisterDropoutCudaKernels(OpRegistry& registry) { registry.SetKernel("dropout", DeviceType::kCuda, Dropout); }

}  // namespace sluice

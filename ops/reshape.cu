// CUDA kernel of reshape (ops/reshape.cc): a device-to-device copy of the
// bytes, ordered on the compute stream.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

Status Reshape(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  if (inputs[0].NumBytes() == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(outputs[0]));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(outputs[0].raw_data(), inputs[0].raw_data(), inputs[0].NumBytes(),
                                              cudaMemcpyDeviceToDevice, launch.stream));
  return OkStatus();
}

}  // namespace

void RegisterReshapeCudaKernels(OpRegistry& registry) { registry.SetKernel("reshape", DeviceType::kCuda, Reshape); }

}  // namespace sluice

#include "sluice/executor/cuda_gpu_backend.h"

#include "sluice/executor/device_context.h"
#include "sluice/ops/cuda_status.h"

namespace sluice {
namespace {

Result<Allocator*> DeviceAllocator(int device_index) {
  SLUICE_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(device_index));
  return &context->allocator();
}

// Copies all bytes of `from` into `to` (same dtype and shape) on the
// compute stream of GPU `gpu`, after the work queued there, then waits for
// it. Unified addressing tells CUDA which side each pointer is on.
Status CopyBytes(const Tensor& from, Tensor& to, int gpu) {
  SLUICE_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(gpu));
  if (from.NumBytes() == 0) return OkStatus();
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(gpu));
  SLUICE_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(to.raw_data(), from.raw_data(), from.NumBytes(), cudaMemcpyDefault, context->compute_stream()));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(context->compute_stream()));
  return OkStatus();
}

}  // namespace

GpuBackend CudaGpuBackend() {
  return {.allocator = DeviceAllocator, .copy = CopyBytes, .make_prefetcher = MakeCudaPrefetcher};
}

}  // namespace sluice

#include "sluice/executor/device_context.h"

#include <mutex>

#include "sluice/ops/cuda_status.h"
#include "sluice/ops/device_backend.h"

namespace sluice {
namespace {

constexpr int kMaxDevices = 64;

// One slot per device index; contexts are never destroyed (ops may run
// until exit, and the CUDA runtime tears itself down first).
struct Contexts {
  std::mutex mu;
  DeviceContext* by_index[kMaxDevices] = {};
};

Contexts& AllContexts() {
  static auto* contexts = new Contexts;
  return *contexts;
}

// The backend hooks: valid only for indices whose context exists, which is
// the case for any tensor on that device (made through its allocator).
Allocator* BackendAllocator(int index) { return &AllContexts().by_index[index]->allocator(); }
CudaStream BackendStream(int index) { return AllContexts().by_index[index]->compute_stream(); }
Status BackendUpload(const void* host, void* device, size_t bytes, int index) {
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(index));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, BackendStream(index)));
  return OkStatus();
}

}  // namespace

Result<DeviceContext*> DeviceContext::Get(int index) {
  Contexts& contexts = AllContexts();
  std::lock_guard lock(contexts.mu);
  if (index < 0 || index >= kMaxDevices) return InvalidArgumentError("cuda device index ", index, " is out of range");
  if (contexts.by_index[index] != nullptr) return contexts.by_index[index];
  SLUICE_ASSIGN_OR_RETURN(const int count, CudaDeviceCount());
  if (index >= count) {
    return InvalidArgumentError("cuda:", index, " does not exist: this process sees ", count, " CUDA device(s)");
  }
  std::unique_ptr<DeviceContext> context(new DeviceContext(index));
  SLUICE_RETURN_IF_ERROR(context->Init());
  contexts.by_index[index] = context.release();
  InstallCudaBackend({.allocator = BackendAllocator, .compute_stream = BackendStream, .upload = BackendUpload});
  return contexts.by_index[index];
}

Status DeviceContext::Init() {
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(index_));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&compute_stream_, cudaStreamNonBlocking));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  return OkStatus();
}

Status DeviceContext::Synchronize() {
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(index_));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(copy_stream_));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(compute_stream_));
  return OkStatus();
}

}  // namespace sluice

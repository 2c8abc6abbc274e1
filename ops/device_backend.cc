#include "ops/device_backend.h"

#include <atomic>

namespace sluice {
namespace {

// Function pointers, each written once by InstallCudaBackend.
std::atomic<Allocator* (*)(int)> cuda_allocator{nullptr};
std::atomic<CudaStream (*)(int)> cuda_compute_stream{nullptr};

Status NoBackend(Device device) {
  return FailedPreconditionError("no backend is installed for ", device.ToString(),
                                 ": make tensors there with the executor (executor/device_copy.h)");
}

}  // namespace

void InstallCudaBackend(DeviceBackend backend) {
  cuda_allocator.store(backend.allocator);
  cuda_compute_stream.store(backend.compute_stream);
}

Result<Allocator*> OutputAllocator(Device device) {
  if (device.type == DeviceType::kCpu) return CpuAllocator();
  Allocator* (*allocator)(int) = cuda_allocator.load();
  if (allocator == nullptr) return NoBackend(device);
  return allocator(device.index);
}

Result<CudaStream> ComputeStream(int device_index) {
  CudaStream (*stream)(int) = cuda_compute_stream.load();
  if (stream == nullptr) return NoBackend(Device{DeviceType::kCuda, device_index});
  return stream(device_index);
}

}  // namespace sluice

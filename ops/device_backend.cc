#include "sluice/ops/device_backend.h"

#include <atomic>

namespace sluice {
namespace {

// Function pointers, each written once by InstallCudaBackend.
std::atomic<Allocator* (*)(int)> cuda_allocator{nullptr};
std::atomic<CudaStream (*)(int)> cuda_compute_stream{nullptr};
std::atomic<Status (*)(const void*, void*, size_t, int)> cuda_upload{nullptr};

Status NoBackend(Device device) {
  return FailedPreconditionError("no backend is installed for ", device.ToString(),
                                 ": make tensors there with the executor (executor/device_copy.h)");
}

}  // namespace

void InstallCudaBackend(DeviceBackend backend) {
  cuda_allocator.store(backend.allocator);
  cuda_compute_stream.store(backend.compute_stream);
  cuda_upload.store(backend.upload);
}

Status CudaBackendMissing(std::string_view what, Device device) {
  return FailedPreconditionError(what, ": ", device.ToString(),
                                 " is unavailable: no CUDA backend is registered (a program that uses a GPU links "
                                 "sluice_cuda, built where nvcc exists, and calls sluice::RegisterCudaBackend())");
}

Result<Allocator*> OutputAllocator(Device device) {
  if (device.type == DeviceType::kCpu) return CpuAllocator();
  Allocator* (*allocator)(int) = cuda_allocator.load();
  if (allocator == nullptr) return NoBackend(device);
  return allocator(device.index);
}

Result<Tensor> ConstantLike(const Tensor& host_constant, const Tensor& like) {
  if (like.device().type == DeviceType::kCpu) return host_constant;
  Status (*upload)(const void*, void*, size_t, int) = cuda_upload.load();
  if (upload == nullptr) return NoBackend(like.device());
  SLUICE_ASSIGN_OR_RETURN(Allocator * allocator, OutputAllocator(like.device()));
  Tensor copy = Tensor::AllocateUninitialized(host_constant.dtype(), host_constant.shape(), allocator);
  if (copy.NumBytes() > 0) {
    SLUICE_RETURN_IF_ERROR(upload(host_constant.raw_data(), copy.raw_data(), copy.NumBytes(), like.device().index));
  }
  return copy;
}

Result<CudaStream> ComputeStream(int device_index) {
  CudaStream (*stream)(int) = cuda_compute_stream.load();
  if (stream == nullptr) return NoBackend(Device{DeviceType::kCuda, device_index});
  return stream(device_index);
}

}  // namespace sluice

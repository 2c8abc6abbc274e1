#include "sluice/executor/device_copy.h"

#include <cstring>

#include "sluice/executor/gpu_backend.h"

namespace sluice {
namespace {

// Uninitialised memory for a tensor like `like` on GPU `device`.
Result<Tensor> AllocateOnGpu(const GpuBackend& gpu, const Tensor& like, Device device) {
  SLUICE_ASSIGN_OR_RETURN(Allocator * allocator, gpu.allocator(device.index));
  return Tensor::AllocateUninitialized(like.dtype(), like.shape(), allocator);
}

}  // namespace

Result<Tensor> ToDevice(const Tensor& tensor, Device device) {
  if (tensor.device() == device) return tensor;
  if (device.type == DeviceType::kCpu) return ToHost(tensor);
  if (tensor.dtype() == DType::kString) {
    return InvalidArgumentError("ToDevice: string tensors stay on the host, cannot copy one to ", device.ToString());
  }
  SLUICE_ASSIGN_OR_RETURN(const GpuBackend* gpu, InstalledGpuBackend("ToDevice", device));
  SLUICE_ASSIGN_OR_RETURN(Tensor copy, AllocateOnGpu(*gpu, tensor, device));
  SLUICE_RETURN_IF_ERROR(gpu->copy(tensor, copy, device.index));
  return copy;
}

Result<Tensor> ToHost(const Tensor& tensor) {
  if (tensor.device().type == DeviceType::kCpu) return tensor;
  SLUICE_ASSIGN_OR_RETURN(const GpuBackend* gpu, InstalledGpuBackend("ToHost", tensor.device()));
  Tensor copy = Tensor::AllocateUninitialized(tensor.dtype(), tensor.shape());
  SLUICE_RETURN_IF_ERROR(gpu->copy(tensor, copy, tensor.device().index));
  return copy;
}

Result<Tensor> DeepCopy(const Tensor& tensor) {
  if (tensor.device().type == DeviceType::kCpu) return tensor.Clone();
  SLUICE_ASSIGN_OR_RETURN(const GpuBackend* gpu, InstalledGpuBackend("DeepCopy", tensor.device()));
  SLUICE_ASSIGN_OR_RETURN(Tensor copy, AllocateOnGpu(*gpu, tensor, tensor.device()));
  SLUICE_RETURN_IF_ERROR(gpu->copy(tensor, copy, tensor.device().index));
  return copy;
}

Status CopyInto(const Tensor& from, Tensor& to) {
  if (from.device().type == DeviceType::kCpu && to.device().type == DeviceType::kCpu) {
    if (from.NumBytes() > 0) std::memcpy(to.raw_data(), from.raw_data(), from.NumBytes());
    return OkStatus();
  }
  const Device gpu_device = to.device().type == DeviceType::kCuda ? to.device() : from.device();
  SLUICE_ASSIGN_OR_RETURN(const GpuBackend* gpu, InstalledGpuBackend("CopyInto", gpu_device));
  return gpu->copy(from, to, gpu_device.index);
}

}  // namespace sluice

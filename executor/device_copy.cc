#include "sluice/executor/device_copy.h"

#include <cstring>

#include "sluice/executor/device_context.h"
#include "sluice/ops/cuda_status.h"

namespace sluice {
namespace {

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

Result<Tensor> ToDevice(const Tensor& tensor, Device device) {
  if (tensor.device() == device) return tensor;
  if (device.type == DeviceType::kCpu) return ToHost(tensor);
  if (tensor.dtype() == DType::kString) {
    return InvalidArgumentError("ToDevice: string tensors stay on the host, cannot copy one to ", device.ToString());
  }
  SLUICE_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(device.index));
  Tensor copy = Tensor::AllocateUninitialized(tensor.dtype(), tensor.shape(), &context->allocator());
  SLUICE_RETURN_IF_ERROR(CopyBytes(tensor, copy, device.index));
  return copy;
}

Result<Tensor> ToHost(const Tensor& tensor) {
  if (tensor.device().type == DeviceType::kCpu) return tensor;
  Tensor copy = Tensor::AllocateUninitialized(tensor.dtype(), tensor.shape());
  SLUICE_RETURN_IF_ERROR(CopyBytes(tensor, copy, tensor.device().index));
  return copy;
}

Result<Tensor> DeepCopy(const Tensor& tensor) {
  if (tensor.device().type == DeviceType::kCpu) return tensor.Clone();
  SLUICE_ASSIGN_OR_RETURN(DeviceContext * context, DeviceContext::Get(tensor.device().index));
  Tensor copy = Tensor::AllocateUninitialized(tensor.dtype(), tensor.shape(), &context->allocator());
  SLUICE_RETURN_IF_ERROR(CopyBytes(tensor, copy, tensor.device().index));
  return copy;
}

Status CopyInto(const Tensor& from, Tensor& to) {
  if (from.device().type == DeviceType::kCpu && to.device().type == DeviceType::kCpu) {
    if (from.NumBytes() > 0) std::memcpy(to.raw_data(), from.raw_data(), from.NumBytes());
    return OkStatus();
  }
  return CopyBytes(from, to, to.device().type == DeviceType::kCuda ? to.device().index : from.device().index);
}

}  // namespace sluice

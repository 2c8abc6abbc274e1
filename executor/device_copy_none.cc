// A build without nvcc: only the host exists.
#include "sluice/executor/device_copy.h"

#include <cstring>

namespace sluice {

Result<Tensor> ToDevice(const Tensor& tensor, Device device) {
  if (device.type == DeviceType::kCpu) return tensor;
  return FailedPreconditionError("ToDevice: ", device.ToString(), " is unavailable: Sluice was built without CUDA");
}

Result<Tensor> ToHost(const Tensor& tensor) { return tensor; }

Result<Tensor> DeepCopy(const Tensor& tensor) { return tensor.Clone(); }

Status CopyInto(const Tensor& from, Tensor& to) {
  if (from.NumBytes() > 0) std::memcpy(to.raw_data(), from.raw_data(), from.NumBytes());
  return OkStatus();
}

}  // namespace sluice

#include "sluice/executor/collectives.h"

namespace sluice {

Status CheckReducible(const Tensor& tensor, std::string_view call) {
  if (!tensor.valid()) return InvalidArgumentError(call, ": the tensor is invalid");
  if (tensor.dtype() != DType::kFloat32 && tensor.dtype() != DType::kFloat64) {
    return InvalidArgumentError(call, " reduces float32 or float64 tensors, got ", tensor.dtype(), tensor.shape());
  }
  if (tensor.device().type != DeviceType::kCpu) {
    return InvalidArgumentError(call, " takes host tensors; this one is in device memory (copy it to the host)");
  }
  return OkStatus();
}

Status CheckGatherLength(const std::string& bytes, int64_t max_bytes) {
  if (max_bytes < 0 || max_bytes > kMaxGatherBytes) {
    return InvalidArgumentError("Gather: max_bytes must be in [0, ", kMaxGatherBytes, "], got ", max_bytes);
  }
  if (static_cast<int64_t>(bytes.size()) > max_bytes) {
    return InvalidArgumentError("Gather of ", bytes.size(), " bytes; at most ", max_bytes);
  }
  return OkStatus();
}

Status CheckBroadcastable(const Tensor& tensor) {
  if (!tensor.valid()) return InvalidArgumentError("Broadcast: the tensor is invalid");
  if (tensor.dtype() == DType::kString) {
    return InvalidArgumentError("Broadcast takes numeric tensors, got a string tensor");
  }
  if (tensor.device().type != DeviceType::kCpu) {
    return InvalidArgumentError("Broadcast takes host tensors; this one is in device memory (copy it to the host)");
  }
  return OkStatus();
}

}  // namespace sluice

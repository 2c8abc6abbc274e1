#include "sluice/model/fused_updates.h"

#include <atomic>

#include "sluice/ops/device_backend.h"

namespace sluice {
namespace {

std::atomic<const FusedUpdateKernels*> installed{nullptr};

Result<const FusedUpdateKernels*> Installed(std::string_view what, const Tensor& on_device) {
  const FusedUpdateKernels* kernels = installed.load(std::memory_order_acquire);
  if (kernels == nullptr) return CudaBackendMissing(what, on_device.device());
  return kernels;
}

}  // namespace

void InstallFusedUpdateKernels(const FusedUpdateKernels& kernels) {
  // Never freed: optimizer steps may run until exit.
  installed.store(new FusedUpdateKernels(kernels), std::memory_order_release);
}

Status SgdUpdateOnDevice(Tensor& weights, const Tensor& gradient, Tensor* velocity, const SgdStep& step) {
  SLUICE_ASSIGN_OR_RETURN(const FusedUpdateKernels* kernels, Installed("SGD update", weights));
  return kernels->sgd(weights, gradient, velocity, step);
}

Status AdamUpdateOnDevice(Tensor& weights, Tensor& m, Tensor& v, const Tensor& gradient, const AdamStep& step) {
  SLUICE_ASSIGN_OR_RETURN(const FusedUpdateKernels* kernels, Installed("Adam update", weights));
  return kernels->adam(weights, m, v, gradient, step);
}

Result<std::vector<double>> SumsOfSquaresOnDevice(std::span<const Tensor> tensors) {
  if (tensors.empty()) return std::vector<double>();
  SLUICE_ASSIGN_OR_RETURN(const FusedUpdateKernels* kernels, Installed("gradient norm", tensors[0]));
  return kernels->sums_of_squares(tensors);
}

}  // namespace sluice

#include "sluice/executor/gpu_backend.h"

#include <atomic>

#include "sluice/ops/device_backend.h"

namespace sluice {
namespace {

std::atomic<const GpuBackend*> installed{nullptr};

}  // namespace

void InstallGpuBackend(const GpuBackend& backend) {
  // Never freed: GPU work may run until exit.
  installed.store(new GpuBackend(backend), std::memory_order_release);
}

Result<const GpuBackend*> InstalledGpuBackend(std::string_view what, Device device) {
  const GpuBackend* backend = installed.load(std::memory_order_acquire);
  if (backend == nullptr) return CudaBackendMissing(what, device);
  return backend;
}

}  // namespace sluice

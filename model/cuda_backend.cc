#include "sluice/model/cuda_backend.h"

#include <mutex>

#include "sluice/executor/cuda_gpu_backend.h"
#include "sluice/model/cuda_fused_updates.h"
#include "sluice/ops/cuda_kernels.h"
#include "sluice/ops/op_registry.h"

namespace sluice {

void RegisterCudaBackend() {
  static std::once_flag registered;
  std::call_once(registered, [] {
    RegisterCudaKernels(OpRegistry::Global());
    InstallGpuBackend(CudaGpuBackend());
    InstallFusedUpdateKernels(CudaFusedUpdateKernels());
  });
}

}  // namespace sluice

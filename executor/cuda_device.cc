#include "sluice/executor/cuda_device.h"

#include <cstdio>

#include "sluice/ops/cuda_status.h"

namespace sluice {

std::string CudaDeviceInfo::ToString() const {
  char memory[32];
  std::snprintf(memory, sizeof(memory), "%.1f GiB", static_cast<double>(total_memory) / (1ull << 30));
  return StrCat("cuda:", index, " ", name, " (sm_", compute_major, compute_minor, ", ", memory, ", ",
                multiprocessors, " SMs)");
}

Result<std::vector<CudaDeviceInfo>> ListCudaDevices() {
  SLUICE_ASSIGN_OR_RETURN(const int count, CudaDeviceCount());
  std::vector<CudaDeviceInfo> devices;
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp properties;
    SLUICE_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&properties, i));
    devices.push_back({.index = i,
                       .name = properties.name,
                       .compute_major = properties.major,
                       .compute_minor = properties.minor,
                       .total_memory = properties.totalGlobalMem,
                       .multiprocessors = properties.multiProcessorCount});
  }
  return devices;
}

}  // namespace sluice

// CUDA device discovery: which GPUs this process can use, with their name,
// compute capability and memory. Without a driver or a GPU the answer is an
// error saying why (CUDA's own message, e.g. "CUDA driver version is
// insufficient for CUDA runtime version"), which tests print when they skip.
// Thread safety: safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sluice/core/status.h"

namespace sluice {

struct CudaDeviceInfo {
  int index = 0;
  std::string name;  // "NVIDIA H200"
  int compute_major = 0;
  int compute_minor = 0;
  size_t total_memory = 0;  // bytes
  int multiprocessors = 0;

  // "cuda:0 NVIDIA H200 (sm_90, 139.8 GiB, 132 SMs)".
  std::string ToString() const;
};

Result<std::vector<CudaDeviceInfo>> ListCudaDevices();

}  // namespace sluice

// CudaGpuBackend: the executor's GPU operations on CUDA (executor/gpu_backend.h):
// each device's caching allocator from its DeviceContext, copies on its
// compute stream, and the CUDA prefetcher. Part of sluice_cuda;
// RegisterCudaBackend (model/cuda_backend.h) installs it.
// Thread safety: safe from any thread.
#pragma once

#include <memory>

#include "sluice/executor/gpu_backend.h"

namespace sluice {

GpuBackend CudaGpuBackend();

// prefetch_to_device for a GPU (executor/cuda_prefetcher.cc), which
// PrefetchToDevice reaches through the installed GpuBackend.
// REQUIRES: arguments validated as PrefetchToDevice does.
Result<std::unique_ptr<DevicePrefetcher>> MakeCudaPrefetcher(BatchSource source,
                                                             const PrefetchToDeviceOptions& options);

}  // namespace sluice

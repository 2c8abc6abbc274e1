// GpuBackend: the executor's way into the CUDA library (sluice_cuda), which
// the CPU libraries never link, so that a program that uses no GPU never
// loads the CUDA runtime or cuBLAS. Device memory and copies
// (executor/device_copy.h) and prefetch_to_device for a GPU
// (executor/device_prefetcher.h) call the functions installed here;
// RegisterCudaBackend (model/cuda_backend.h) installs sluice_cuda's. Until
// then a GPU device is a FailedPrecondition that says how to get one.
// Thread safety: install before GPU work starts; lookups are safe from any
// thread.
#pragma once

#include <memory>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/executor/device_prefetcher.h"

namespace sluice {

struct GpuBackend {
  // The allocator of GPU `device_index` (its context made on first use), or
  // why that device is unusable.
  Result<Allocator*> (*allocator)(int device_index) = nullptr;
  // Copies the bytes of `from` into `to` (same dtype and shape, one or both
  // on GPU `device_index`) after the work queued there, and waits for it.
  Status (*copy)(const Tensor& from, Tensor& to, int device_index) = nullptr;
  // prefetch_to_device for a GPU; arguments validated by PrefetchToDevice.
  Result<std::unique_ptr<DevicePrefetcher>> (*make_prefetcher)(BatchSource source,
                                                               const PrefetchToDeviceOptions& options) = nullptr;
};

void InstallGpuBackend(const GpuBackend& backend);

// The installed backend, or FailedPrecondition naming `what` (the caller,
// "ToDevice") and `device` when none is.
Result<const GpuBackend*> InstalledGpuBackend(std::string_view what, Device device);

}  // namespace sluice

// The CUDA allocators: CudaAllocator hands out device memory of one GPU
// (plain cudaMalloc blocks, never managed memory) and PinnedHostAllocator
// page-locked host memory (cudaHostAlloc) for staging copies; both cache
// freed blocks by size class (executor/caching_allocator.h), so a training
// step makes no CUDA allocation once the first step has run.
//
// Device blocks are reused in host order: a block freed while kernels on
// the device's compute stream still read it is only handed to work queued
// later on that same stream, which is why every op runs there.
// Thread safety: as CachingAllocator.
#pragma once

#include <string>

#include "sluice/executor/caching_allocator.h"

namespace sluice {

class CudaAllocator final : public CachingAllocator {
 public:
  explicit CudaAllocator(int device_index);
  ~CudaAllocator() override { ReleaseCached(); }
  Device device() const override { return Device{DeviceType::kCuda, device_index_}; }
  std::string_view name() const override { return name_; }

 protected:
  void* AllocateBlock(size_t bytes, std::string* error) override;
  void FreeBlock(void* block) override;

 private:
  const int device_index_;
  const std::string name_;
};

class PinnedHostAllocator final : public CachingAllocator {
 public:
  ~PinnedHostAllocator() override { ReleaseCached(); }
  Device device() const override { return Device{DeviceType::kCpu, 0}; }
  std::string_view name() const override { return "cuda_pinned_host"; }

 protected:
  void* AllocateBlock(size_t bytes, std::string* error) override;
  void FreeBlock(void* block) override;
};

// The process-wide pinned host allocator (never destroyed, so that buffers
// freed during exit stay valid to free).
PinnedHostAllocator* PinnedAllocator();

}  // namespace sluice

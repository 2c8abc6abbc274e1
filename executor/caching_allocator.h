// CachingAllocator: an Allocator that keeps freed blocks by size class
// (executor/block_cache.h) and reuses them, so a training loop stops
// calling the expensive underlying allocator (cudaMalloc, cudaHostAlloc)
// after its first step. On exhaustion it frees every cached block and tries
// once more. Subclasses supply the underlying allocation.
// Thread safety: Allocate and Deallocate are safe from any thread.
#pragma once

#include <string>

#include "sluice/core/buffer.h"
#include "sluice/executor/block_cache.h"

namespace sluice {

class CachingAllocator : public Allocator {
 public:
  void* Allocate(size_t bytes) final;
  void Deallocate(void* data, size_t bytes) final;

  BlockCacheStats stats() const { return cache_.stats(); }
  // Frees every cached block (blocks in use stay valid).
  void ReleaseCached();
  // Why the last failed Allocate failed ("cudaMalloc(...) failed: out of
  // memory (cudaErrorMemoryAllocation)"); empty if none failed.
  std::string last_error() const;

 protected:
  // A new block of exactly `bytes`, or nullptr with *error set.
  virtual void* AllocateBlock(size_t bytes, std::string* error) = 0;
  virtual void FreeBlock(void* block) = 0;

 private:
  BlockCache cache_;
  mutable std::mutex error_mu_;
  std::string last_error_;  // GUARDED_BY(error_mu_)
};

}  // namespace sluice

#include "sluice/executor/caching_allocator.h"

#include "sluice/executor/size_classes.h"

namespace sluice {

void* CachingAllocator::Allocate(size_t bytes) {
  const size_t size_class = SizeClass(bytes);
  if (void* block = cache_.Take(size_class)) return block;
  std::string error;
  void* block = AllocateBlock(size_class, &error);
  if (block == nullptr) {
    // Cached blocks of other sizes may be what the device is short of.
    ReleaseCached();
    block = AllocateBlock(size_class, &error);
  }
  if (block == nullptr) {
    std::lock_guard lock(error_mu_);
    last_error_ = std::move(error);
    return nullptr;
  }
  cache_.AddInUse(size_class);
  return block;
}

void CachingAllocator::Deallocate(void* data, size_t bytes) { cache_.Put(data, SizeClass(bytes)); }

void CachingAllocator::ReleaseCached() {
  for (const auto& [block, size_class] : cache_.Drain()) FreeBlock(block);
}

std::string CachingAllocator::last_error() const {
  std::lock_guard lock(error_mu_);
  return last_error_;
}

}  // namespace sluice

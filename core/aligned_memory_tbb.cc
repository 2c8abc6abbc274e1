#include <tbb/scalable_allocator.h>

#include <cstdint>

#include "sluice/core/aligned_memory.h"

namespace sluice {
namespace {

// No host holds more than 2^47 bytes (x86-64's user address space): a larger
// request is exhausted at once, without asking the allocator (a sanitizer's
// aborts on it).
constexpr size_t kMaxAllocationBytes = size_t{1} << 47;

// oneTBB's allocator keeps the large blocks (over 8 KiB) a thread frees, up
// to 4 MiB of them, in a cache for that thread's next allocations. A
// pipeline makes an element's buffer on a producer thread and frees it on
// the consumer's, which allocates none: that cache only fills up, the
// producers map new memory meanwhile, and the process holds up to 4 MiB per
// consuming thread beyond what it uses. So a thread that has freed
// kReturnCachesAfterBytes of blocks of at least kLargeBlockBytes hands its
// caches back to the allocator's shared ones, where the producers reuse them.
constexpr size_t kLargeBlockBytes = size_t{64} << 10;
constexpr int64_t kReturnCachesAfterBytes = int64_t{1} << 20;
thread_local int64_t large_bytes_freed = 0;

}  // namespace

void* AlignedAllocate(size_t bytes, size_t alignment) {
  if (bytes > kMaxAllocationBytes) return nullptr;
  return scalable_aligned_malloc(bytes == 0 ? 1 : bytes, alignment);
}

void AlignedFree(void* data) {
  if (data == nullptr) return;
  const size_t bytes = scalable_msize(data);
  scalable_aligned_free(data);
  if (bytes < kLargeBlockBytes) [[likely]] return;
  large_bytes_freed += static_cast<int64_t>(bytes);
  if (large_bytes_freed >= kReturnCachesAfterBytes) {
    large_bytes_freed = 0;
    scalable_allocation_command(TBBMALLOC_CLEAN_THREAD_BUFFERS, nullptr);
  }
}

}  // namespace sluice

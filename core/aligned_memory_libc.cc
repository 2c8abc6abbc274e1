#include <cstdint>
#include <cstdlib>

#include "sluice/core/aligned_memory.h"

namespace sluice {

// No host holds more than 2^47 bytes (x86-64's user address space): a larger
// request is exhausted at once, without asking the allocator (a sanitizer's
// aborts on it).
constexpr size_t kMaxAllocationBytes = size_t{1} << 47;

void* AlignedAllocate(size_t bytes, size_t alignment) {
  if (bytes > kMaxAllocationBytes) return nullptr;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

void AlignedFree(void* data) { std::free(data); }

}  // namespace sluice

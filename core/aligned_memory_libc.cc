#include <cstdint>
#include <cstdlib>

#include "core/aligned_memory.h"

namespace sluice {

void* AlignedAllocate(size_t bytes, size_t alignment) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  if (bytes > SIZE_MAX - alignment) return nullptr;
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

void AlignedFree(void* data) { std::free(data); }

}  // namespace sluice

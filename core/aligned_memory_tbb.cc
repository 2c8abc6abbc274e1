#include <tbb/scalable_allocator.h>

#include "core/aligned_memory.h"

namespace sluice {

void* AlignedAllocate(size_t bytes, size_t alignment) {
  return scalable_aligned_malloc(bytes == 0 ? 1 : bytes, alignment);
}

void AlignedFree(void* data) { scalable_aligned_free(data); }

}  // namespace sluice

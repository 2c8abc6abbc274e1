// Aligned host memory for CpuAllocator() (core/buffer.h). Two
// implementations, chosen by the build: oneTBB's scalable allocator
// (aligned_memory_tbb.cc) in normal builds, because buffers made on a
// producer thread and freed on the consumer's are the common case and there
// glibc's malloc contends on its arena locks; the C library
// (aligned_memory_libc.cc) under sanitizers, which must see every allocation.
// HostObjectAllocator<T> is a standard allocator over the same memory, for
// the small objects that are made on one thread and freed on another
// (element vectors, buffer headers, prefetch queues).
// Thread safety: all of it is thread-safe.
#pragma once

#include <cstddef>
#include <new>

namespace sluice {

// REQUIRES: alignment is a power of two. Returns nullptr when exhausted.
void* AlignedAllocate(size_t bytes, size_t alignment);
void AlignedFree(void* data);

template <typename T>
struct HostObjectAllocator {
  using value_type = T;
  HostObjectAllocator() = default;
  template <typename U>
  HostObjectAllocator(const HostObjectAllocator<U>&) {}  // NOLINT: rebinding is implicit

  T* allocate(size_t n) {
    void* data = AlignedAllocate(n * sizeof(T), alignof(T) < 16 ? 16 : alignof(T));
    if (data == nullptr) throw std::bad_alloc();
    return static_cast<T*>(data);
  }
  void deallocate(T* data, size_t) { AlignedFree(data); }
  template <typename U>
  bool operator==(const HostObjectAllocator<U>&) const { return true; }
};

}  // namespace sluice

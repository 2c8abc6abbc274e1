// SizeClass: the block size a caching allocator (executor/cuda_allocator.h,
// executor/pinned_allocator.h) hands out for a request, so that freed blocks
// serve later requests of similar size: multiples of 512 bytes up to 1 MiB,
// then four classes per power of two (at most 25% over the request). A
// training step asks for the same sizes every step, so after the first step
// every request is served from the cache.
// Thread safety: pure functions.
#pragma once

#include <cstddef>

namespace sluice {

inline constexpr size_t kSmallSizeStep = 512;
inline constexpr size_t kLargeSizeFrom = size_t{1} << 20;

// The block size for a request of `bytes` (>= bytes; 0 gives the smallest).
size_t SizeClass(size_t bytes);

}  // namespace sluice

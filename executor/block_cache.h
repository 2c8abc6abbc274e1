// BlockCache: the free lists behind the caching allocators
// (executor/cuda_allocator.h, executor/pinned_allocator.h): freed blocks
// kept by size class (executor/size_classes.h) for the next request of that
// class, with the counts that say whether the cache works (hits, misses,
// bytes in use and cached). It never allocates memory itself: its owner
// allocates on a miss and frees what Drain returns.
// Thread safety: all methods are safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace sluice {

struct BlockCacheStats {
  size_t bytes_in_use = 0;  // handed out, by size class
  size_t bytes_cached = 0;  // freed and kept for reuse
  int64_t hits = 0;         // requests served from the cache
  int64_t misses = 0;       // requests that needed a new block
};

class BlockCache {
 public:
  // A cached block of `size_class` bytes, or nullptr (a miss: the owner
  // allocates one and reports it with AddInUse).
  void* Take(size_t size_class);
  // Counts a block the owner allocated after a miss.
  void AddInUse(size_t size_class);
  // Keeps a block given back by its user for reuse.
  void Put(void* block, size_t size_class);
  // Removes and returns every cached block with its size class, for the
  // owner to free (on exhaustion, or at destruction).
  std::vector<std::pair<void*, size_t>> Drain();
  BlockCacheStats stats() const;

 private:
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;  // GUARDED_BY(mu_)
  BlockCacheStats stats_;                      // GUARDED_BY(mu_)
};

}  // namespace sluice

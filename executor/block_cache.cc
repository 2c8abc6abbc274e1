#include "sluice/executor/block_cache.h"

namespace sluice {

void* BlockCache::Take(size_t size_class) {
  std::lock_guard lock(mu_);
  auto it = free_.find(size_class);
  if (it == free_.end() || it->second.empty()) {
    ++stats_.misses;
    return nullptr;
  }
  void* block = it->second.back();
  it->second.pop_back();
  ++stats_.hits;
  stats_.bytes_cached -= size_class;
  stats_.bytes_in_use += size_class;
  return block;
}

void BlockCache::AddInUse(size_t size_class) {
  std::lock_guard lock(mu_);
  stats_.bytes_in_use += size_class;
}

void BlockCache::Put(void* block, size_t size_class) {
  std::lock_guard lock(mu_);
  free_[size_class].push_back(block);
  stats_.bytes_in_use -= size_class;
  stats_.bytes_cached += size_class;
}

std::vector<std::pair<void*, size_t>> BlockCache::Drain() {
  std::lock_guard lock(mu_);
  std::vector<std::pair<void*, size_t>> blocks;
  for (auto& [size_class, list] : free_) {
    for (void* block : list) blocks.emplace_back(block, size_class);
  }
  free_.clear();
  stats_.bytes_cached = 0;
  return blocks;
}

BlockCacheStats BlockCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

}  // namespace sluice

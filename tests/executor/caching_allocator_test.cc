#include "sluice/executor/caching_allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

#include "sluice/executor/size_classes.h"

namespace sluice {
namespace {

// Host memory standing in for a device: counts its allocations, and fails
// once `capacity` bytes are out.
class FakeDeviceAllocator final : public CachingAllocator {
 public:
  explicit FakeDeviceAllocator(size_t capacity = size_t{1} << 30) : capacity_(capacity) {}
  ~FakeDeviceAllocator() override { ReleaseCached(); }
  Device device() const override { return Device{DeviceType::kCuda, 0}; }
  std::string_view name() const override { return "fake"; }

  int allocations = 0;
  int frees = 0;

 protected:
  void* AllocateBlock(size_t bytes, std::string* error) override {
    if (outstanding_ + bytes > capacity_) {
      *error = "fakeMalloc failed: out of memory";
      return nullptr;
    }
    void* block = std::aligned_alloc(64, bytes);  // size classes are multiples of 512
    ++allocations;
    outstanding_ += bytes;
    sizes_[block] = bytes;
    return block;
  }
  void FreeBlock(void* block) override {
    ++frees;
    outstanding_ -= sizes_[block];
    sizes_.erase(block);
    std::free(block);
  }

 private:
  const size_t capacity_;
  size_t outstanding_ = 0;
  std::map<void*, size_t> sizes_;
};

TEST(CachingAllocatorTest, ReusesFreedBlocksOfTheSameClass) {
  FakeDeviceAllocator allocator;
  // A "training step": the same requests every time.
  for (int step = 0; step < 5; ++step) {
    void* a = allocator.Allocate(1000);
    void* b = allocator.Allocate(3 << 20);
    ASSERT_NE(a, nullptr);
    ASSERT_NE(b, nullptr);
    allocator.Deallocate(a, 1000);
    allocator.Deallocate(b, 3 << 20);
  }
  EXPECT_EQ(allocator.allocations, 2) << "only the first step allocates";
  const BlockCacheStats stats = allocator.stats();
  EXPECT_EQ(stats.misses, 2);
  EXPECT_EQ(stats.hits, 8);
  EXPECT_EQ(stats.bytes_in_use, 0u);
  EXPECT_EQ(stats.bytes_cached, SizeClass(1000) + SizeClass(3 << 20));
}

TEST(CachingAllocatorTest, CountsBytesInUseBySizeClass) {
  FakeDeviceAllocator allocator;
  void* a = allocator.Allocate(100);
  void* b = allocator.Allocate(100);
  EXPECT_NE(a, b);
  EXPECT_EQ(allocator.stats().bytes_in_use, 2 * SizeClass(100));
  allocator.Deallocate(a, 100);
  EXPECT_EQ(allocator.stats().bytes_in_use, SizeClass(100));
  EXPECT_EQ(allocator.stats().bytes_cached, SizeClass(100));
  allocator.Deallocate(b, 100);
}

TEST(CachingAllocatorTest, FreesTheCacheAndRetriesWhenExhausted) {
  FakeDeviceAllocator allocator(/*capacity=*/4096);
  void* small = allocator.Allocate(2048);
  allocator.Deallocate(small, 2048);  // cached: 2048 of the 4096 bytes
  void* large = allocator.Allocate(4096);
  ASSERT_NE(large, nullptr) << "the cached block was freed to make room";
  EXPECT_EQ(allocator.frees, 1);
  EXPECT_EQ(allocator.stats().bytes_cached, 0u);
  EXPECT_EQ(allocator.Allocate(512), nullptr);
  EXPECT_EQ(allocator.last_error(), "fakeMalloc failed: out of memory");
  allocator.Deallocate(large, 4096);
}

}  // namespace
}  // namespace sluice

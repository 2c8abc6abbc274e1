// prefetch_to_device on a GPU: the same batches as the host pipeline, on
// the device, with staging buffers reused across steps. Skipped without a
// CUDA device.
#include <gtest/gtest.h>

#include "cuda_test_util.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/executor/cuda_allocator.h"
#include "sluice/executor/device_copy.h"
#include "sluice/executor/device_prefetcher.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

Pipeline Batches(int64_t rows) {
  std::vector<float> x(rows * 5);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i % 97) - 7;
  std::vector<int32_t> y(rows);
  for (int64_t i = 0; i < rows; ++i) y[i] = static_cast<int32_t>((i * 7) % 5);
  return Pipeline::FromSlices({{"x", Tensor::FromVector(x, Shape{rows, 5})}, {"y", Tensor::FromVector(y)}})
      .Batch({.batch_size = 16});
}

TEST(CudaPrefetcherTest, DeliversTheHostBatchesOnTheDevice) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  for (int depth : {2, 3}) {
    auto host = Batches(200).MakeIterator();
    auto input = Batches(200).MakeIterator();
    ASSERT_TRUE(host.ok() && input.ok());
    auto prefetcher = PrefetchToDevice(std::move(*input), {.device = kGpu, .depth = depth});
    ASSERT_TRUE(prefetcher.ok()) << prefetcher.status().ToString();
    int batches = 0;
    while (true) {
      auto expected = (*host)->GetNext();
      auto got = (*prefetcher)->GetNext();
      ASSERT_TRUE(expected.ok() && got.ok()) << got.status().ToString();
      ASSERT_EQ(expected->has_value(), got->has_value()) << "batch " << batches;
      if (!got->has_value()) break;
      for (size_t c = 0; c < (*got)->size(); ++c) {
        EXPECT_EQ((**got)[c].device(), kGpu);
        auto back = ToHost((**got)[c]);
        ASSERT_TRUE(back.ok());
        EXPECT_TRUE(back->Equals((**expected)[c])) << "batch " << batches << " component " << c;
      }
      ++batches;
    }
    EXPECT_EQ(batches, 13);  // 200 rows in batches of 16
  }
}

TEST(CudaPrefetcherTest, StagingBuffersAreReusedNotReallocated) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  auto input = Batches(16 * 50).MakeIterator();
  ASSERT_TRUE(input.ok());
  auto prefetcher = PrefetchToDevice(std::move(*input), {.device = kGpu, .depth = 2});
  ASSERT_TRUE(prefetcher.ok());
  const int64_t misses_before = PinnedAllocator()->stats().misses;
  int batches = 0;
  while (true) {
    auto next = (*prefetcher)->GetNext();
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    ++batches;
  }
  EXPECT_EQ(batches, 50);
  EXPECT_LE(PinnedAllocator()->stats().misses - misses_before, 2 * 2) << "two components in each of two slots";
}

}  // namespace
}  // namespace sluice

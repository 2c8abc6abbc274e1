#include "sluice/executor/device_prefetcher.h"

#include <gtest/gtest.h>

#include "gpu_without_backend.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

Pipeline Batches() {
  std::vector<float> x(10 * 3);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 3;
  std::vector<int64_t> y = {4, 1, 0, 3, 2, 2, 1, 0, 4, 3};
  return Pipeline::FromSlices({{"x", Tensor::FromVector(x, Shape{10, 3})}, {"y", Tensor::FromVector(y)}})
      .Batch({.batch_size = 4});
}

std::vector<Element> Drain(DevicePrefetcher& prefetcher) {
  std::vector<Element> batches;
  while (true) {
    auto next = prefetcher.GetNext();
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next->has_value()) return batches;
    batches.push_back(std::move(**next));
  }
}

TEST(DevicePrefetcherTest, OnTheHostBatchesPassThroughUnchanged) {
  auto expected_iterator = Batches().MakeIterator();
  ASSERT_TRUE(expected_iterator.ok());
  std::vector<Element> expected;
  while (true) {
    auto next = (*expected_iterator)->GetNext();
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    expected.push_back(std::move(**next));
  }
  ASSERT_EQ(expected.size(), 3u);

  for (int depth : {1, 2, 4}) {
    auto input = Batches().MakeIterator();
    ASSERT_TRUE(input.ok());
    auto prefetcher = PrefetchToDevice(std::move(*input), {.depth = depth});
    ASSERT_TRUE(prefetcher.ok()) << prefetcher.status().ToString();
    const std::vector<Element> batches = Drain(**prefetcher);
    ASSERT_EQ(batches.size(), expected.size()) << "depth " << depth;
    for (size_t i = 0; i < batches.size(); ++i) {
      EXPECT_TRUE(batches[i].Equals(expected[i])) << "batch " << i << " at depth " << depth;
      EXPECT_EQ(batches[i][0].device(), Device{}) << "host batches stay on the host";
    }
    EXPECT_FALSE((*prefetcher)->GetNext()->has_value()) << "the end stays the end";
  }
}

TEST(DevicePrefetcherTest, RejectsInvalidArguments) {
  auto input = Batches().MakeIterator();
  ASSERT_TRUE(input.ok());
  auto host = PrefetchToDevice(std::move(*input), {.depth = 0});
  EXPECT_EQ(host.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(host.status().message().find("depth must be >= 1, got 0"), std::string::npos);

  input = Batches().MakeIterator();
  ASSERT_TRUE(input.ok());
  auto gpu = PrefetchToDevice(std::move(*input), {.device = {DeviceType::kCuda, 0}, .depth = 1});
  EXPECT_EQ(gpu.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(gpu.status().message().find("depth must be >= 2 for cuda:0"), std::string::npos)
      << gpu.status().message();

  EXPECT_EQ(PrefetchToDevice(std::unique_ptr<Iterator>(), {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PrefetchToDevice(BatchSource(), {}).status().code(), StatusCode::kInvalidArgument);
}

TEST(DevicePrefetcherTest, AGpuWithoutTheCudaBackendSaysHowToGetOne) {
  auto input = Batches().MakeIterator();
  ASSERT_TRUE(input.ok());
  auto gpu = PrefetchToDevice(std::move(*input), {.device = {DeviceType::kCuda, 0}, .depth = 2});
  testing::ExpectCudaBackendMissing(gpu.status(), "prefetch_to_device");
}

}  // namespace
}  // namespace sluice

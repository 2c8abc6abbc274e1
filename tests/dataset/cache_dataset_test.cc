#include "sluice/dataset/cache_dataset.h"

#include <atomic>

#include "contract.h"
#include "sluice/tests/dataset/chunk_views.h"

namespace sluice {
namespace {

// range(n) that counts how many elements its map produced.
Pipeline Counted(int64_t n, std::shared_ptr<std::atomic<int>> produced) {
  return Pipeline::Range(n).Map([produced](Element e) -> Result<Element> {
    produced->fetch_add(1);
    return e;
  });
}

// The first pass returns the input's elements as they are; what is cached
// (and replayed) doesn't keep their chunks alive.
// A pass that would hold more than the RAM budget is read through uncached:
// the output is the same, and the next pass reads the input again. Under a
// budget that holds it, the second pass replays the cache.
TEST(CacheDatasetTest, APassOverTheRamBudgetIsNotCached) {
  // The input reads of two passes over range(n).cache() under 64 KiB.
  auto reads_in_two_passes = [](int64_t n) {
    int64_t reads = 0;
    DatasetPtr dataset = testing::Build(Pipeline::Range(n)
                                            .Map([&reads](Element e) -> Result<Element> {
                                              ++reads;
                                              return e;
                                            })
                                            .Cache());
    for (int pass = 0; pass < 2; ++pass) {
      IteratorContext ctx;
      ctx.runtime = Runtime::Create({.ram_budget_bytes = 64 * 1024});
      auto it = dataset->MakeIterator(ctx);
      EXPECT_EQ(testing::Values(testing::Ok(testing::CollectAll(*it))), testing::Values(testing::IntRange(0, n)));
    }
    return reads;
  };
  EXPECT_EQ(reads_in_two_passes(10000), 20000);
  EXPECT_EQ(reads_in_two_passes(100), 100);
}

TEST(CacheDatasetTest, CachedRecordsDontPinTheirChunks) {
  const DatasetPtr dataset = testing::Build(testing::ViewsOfOneChunk(3).Cache());
  const std::vector<Element> first = testing::Collect(dataset);
  const std::vector<Element> replay = testing::Collect(dataset);
  ASSERT_EQ(replay.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GT(first[i][0].BackingBytes(), 0u);
    EXPECT_EQ(replay[i][0].BackingBytes(), 0u);
    EXPECT_TRUE(replay[i].Equals(first[i]));
  }
  EXPECT_EQ(replay[2][0].scalar<TString>(), "cccccccccc");
}

TEST(CacheDatasetTest, SecondPassReplaysWithoutReadingTheInput) {
  auto produced = std::make_shared<std::atomic<int>>(0);
  DatasetPtr dataset = testing::Build(Counted(5, produced).Cache());
  testing::ExpectProduces(dataset, testing::IntRange(0, 5));  // two passes
  EXPECT_EQ(produced->load(), 5);
  EXPECT_EQ(dataset->cardinality(), 5);
}

TEST(CacheDatasetTest, CacheBeforeShuffleKeepsEachEpochShuffledDifferently) {
  auto produced = std::make_shared<std::atomic<int>>(0);
  auto order = testing::Values(testing::Collect(Counted(20, produced).Cache().Shuffle({.buffer_size = 20, .seed = 5}).Repeat(2)));
  ASSERT_EQ(order.size(), 40u);
  EXPECT_EQ(produced->load(), 20);
  EXPECT_NE(std::vector<int64_t>(order.begin(), order.begin() + 20), std::vector<int64_t>(order.begin() + 20, order.end()));
}

// tf.data: a partial pass is discarded, so cache().take(k).repeat() never
// truncates the data to k elements.
TEST(CacheDatasetTest, PartialPassIsDiscarded) {
  auto produced = std::make_shared<std::atomic<int>>(0);
  DatasetPtr cached = testing::Build(Counted(5, produced).Cache());
  EXPECT_EQ(testing::Collect(cached, 2).size(), 2u);
  testing::ExpectProduces(cached, testing::IntRange(0, 5));
  EXPECT_EQ(produced->load(), 2 + 5);
}

TEST(CacheDatasetTest, ErrorsAreNotCached) {
  DatasetPtr dataset = testing::Build(testing::FailingRange(4, {2}).Cache());
  auto first = testing::CollectResults(dataset);
  ASSERT_EQ(first.size(), 4u);
  testing::ExpectFailedElement(first[2], 2);
  auto replay = testing::CollectResults(dataset);
  EXPECT_EQ(testing::Values({*replay[0], *replay[1], *replay[2]}), (std::vector<int64_t>{0, 1, 3}));
  EXPECT_EQ(replay.size(), 3u);
}

TEST(CacheDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeCacheDataset(nullptr), StatusCode::kInvalidArgument, "null");
}

TEST(CacheDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Cache()), 5);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/shard_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(ShardDatasetTest, DocumentedExample) {
  testing::ExpectProduces(Pipeline::Range(10).Shard(3, 0), testing::Ints({0, 3, 6, 9}));
  testing::ExpectProduces(Pipeline::Range(10).Shard(3, 1), testing::Ints({1, 4, 7}));
  testing::ExpectProduces(Pipeline::Range(10).Shard(3, 2), testing::Ints({2, 5, 8}));
}

TEST(ShardDatasetTest, Cardinality) {
  EXPECT_EQ(testing::Build(Pipeline::Range(10).Shard(3, 0))->cardinality(), 4);
  EXPECT_EQ(testing::Build(Pipeline::Range(10).Shard(3, 2))->cardinality(), 3);
  EXPECT_EQ(testing::Build(Pipeline::Range(10).Repeat().Shard(3, 2))->cardinality(), kInfiniteCardinality);
}

TEST(ShardDatasetTest, EachErrorSurfacesInExactlyOneShard) {
  for (int64_t index = 0; index < 3; ++index) {
    auto results = testing::CollectResults(testing::Build(testing::FailingRange(9, {4}).Shard(3, index)));
    ASSERT_EQ(results.size(), 3u);
    for (size_t i = 0; i < results.size(); ++i) {
      const int64_t position = index + 3 * static_cast<int64_t>(i);
      if (position == 4) {
        testing::ExpectFailedElement(results[i], 4);
      } else {
        EXPECT_EQ((*results[i])[0].scalar<int64_t>(), position);
      }
    }
  }
}

TEST(ShardDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Shard(0, 0), StatusCode::kInvalidArgument,
                       "Number of shards must be greater than zero (currently num_shards = 0).");
  testing::ExpectError(Pipeline::Range(3).Shard(3, 3), StatusCode::kInvalidArgument,
                       "Index must be between 0 and 2 (currently index = 3).");
  testing::ExpectError(Pipeline::Range(3).Shard(3, -1), StatusCode::kInvalidArgument, "Index must be between 0 and 2");
}

TEST(ShardDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Shard(4, 1)), 3);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/skip_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(SkipDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Range(10).Skip(7), testing::Ints({7, 8, 9}));
  testing::ExpectProduces(Pipeline::Range(3).Skip(0), testing::Ints({0, 1, 2}));
  testing::ExpectProduces(Pipeline::Range(3).Skip(5), {});
  testing::ExpectProduces(Pipeline::Range(3).Skip(-1), {});
}

TEST(SkipDatasetTest, Cardinality) {
  EXPECT_EQ(testing::Build(Pipeline::Range(10).Skip(7))->cardinality(), 3);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Skip(5))->cardinality(), 0);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Skip(-1))->cardinality(), 0);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Repeat().Skip(5))->cardinality(), kInfiniteCardinality);
}

TEST(SkipDatasetTest, AnErrorWhileSkippingIsReturnedAndNotCounted) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(5, {1}).Skip(2)));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[0], 1);
  EXPECT_EQ(testing::Values({*results[1], *results[2]}), (std::vector<int64_t>{3, 4}));
}

TEST(SkipDatasetTest, RunsAfterSkipping) {
  Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  testing::ExpectRunsMatchElements(testing::Build(Pipeline::FromSlices({{"", x}}).Skip(3)), 4);
}

TEST(SkipDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Skip(-3), StatusCode::kInvalidArgument, "count must be >= 0");
}

TEST(SkipDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Skip(10)), 3);
}

}  // namespace
}  // namespace sluice

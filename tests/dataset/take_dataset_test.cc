#include "sluice/dataset/take_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(TakeDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Range(10).Take(3), testing::Ints({0, 1, 2}));
  testing::ExpectProduces(Pipeline::Range(3).Take(-1), testing::Ints({0, 1, 2}));
  testing::ExpectProduces(Pipeline::Range(3).Take(10), testing::Ints({0, 1, 2}));
  testing::ExpectProduces(Pipeline::Range(3).Take(0), {});
}

TEST(TakeDatasetTest, Cardinality) {
  EXPECT_EQ(testing::Build(Pipeline::Range(10).Take(3))->cardinality(), 3);
  EXPECT_EQ(testing::Build(Pipeline::Range(2).Take(3))->cardinality(), 2);
  EXPECT_EQ(testing::Build(Pipeline::Range(2).Take(-1))->cardinality(), 2);
  EXPECT_EQ(testing::Build(Pipeline::Range(2).Repeat().Take(5))->cardinality(), 5);
  EXPECT_EQ(testing::Build(Pipeline::Range(2).Repeat().Take(-1))->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(9).Filter([](const Element&) -> Result<bool> { return true; }).Take(5))
                ->cardinality(),
            kUnknownCardinality);
}

TEST(TakeDatasetTest, ErrorsCountAsNoElement) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(5, {1}).Take(2)));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_EQ((*results[2])[0].scalar<int64_t>(), 2);
}

TEST(TakeDatasetTest, RunsStopAtCount) {
  Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  testing::ExpectRunsMatchElements(testing::Build(Pipeline::FromSlices({{"", x}}).Take(7)), 3);
}

TEST(TakeDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Take(-2), StatusCode::kInvalidArgument, "count must be >= 0");
}

TEST(TakeDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(3).Take(50)), 4);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/repeat_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(RepeatDatasetTest, DocumentedExample) {
  testing::ExpectProduces(Pipeline::FromSlices({{"", testing::Vec({1, 2, 3})}}).Repeat(3),
                          testing::Ints({1, 2, 3, 1, 2, 3, 1, 2, 3}));
}

TEST(RepeatDatasetTest, ZeroAndForever) {
  testing::ExpectProduces(Pipeline::Range(3).Repeat(0), {});
  EXPECT_EQ(testing::Values(testing::Collect(Pipeline::Range(2).Repeat(), 7)),
            (std::vector<int64_t>{0, 1, 0, 1, 0, 1, 0}));
}

TEST(RepeatDatasetTest, ForeverOverAnEmptyInputTerminates) {
  testing::ExpectProduces(Pipeline::Range(0).Repeat(), {});
  testing::ExpectProduces(Pipeline::Range(5).Filter([](const Element&) -> Result<bool> { return false; }).Repeat(), {});
}

TEST(RepeatDatasetTest, Cardinality) {
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Repeat(4))->cardinality(), 12);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Repeat())->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(0).Repeat())->cardinality(), 0);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Repeat(0))->cardinality(), 0);
  EXPECT_EQ(testing::Build(Pipeline::Range(3).Filter([](const Element&) -> Result<bool> { return true; }).Repeat(2))
                ->cardinality(),
            kUnknownCardinality);
}

TEST(RepeatDatasetTest, ErrorsRepeatWithTheirPass) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(3, {1}).Repeat(2)));
  ASSERT_EQ(results.size(), 6u);
  testing::ExpectFailedElement(results[1], 1);
  testing::ExpectFailedElement(results[4], 1);
  EXPECT_EQ((*results[5])[0].scalar<int64_t>(), 2);
}

TEST(RepeatDatasetTest, RunsCrossPassBoundaries) {
  Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4});
  testing::ExpectRunsMatchElements(testing::Build(Pipeline::FromSlices({{"", x}}).Repeat(3)), 4);
}

TEST(RepeatDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Repeat(-2), StatusCode::kInvalidArgument, "count must be >= 0");
}

TEST(RepeatDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(3).Prefetch(2).Repeat()), 10);
}

}  // namespace
}  // namespace sluice

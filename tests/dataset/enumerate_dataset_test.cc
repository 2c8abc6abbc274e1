#include "dataset/enumerate_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

Element Pair(int64_t index, int64_t value) {
  return Element{Tensor::Scalar<int64_t>(index), Tensor::Scalar<int64_t>(value)};
}

TEST(EnumerateDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::FromSlices({{"", testing::Vec({1, 2, 3})}}).Enumerate(5);
  testing::ExpectProduces(pipeline, {Pair(5, 1), Pair(6, 2), Pair(7, 3)});
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->element_spec().ToString(), "(index: int64[], int64[])");
  EXPECT_EQ(dataset->cardinality(), 3);
}

TEST(EnumerateDatasetTest, AnErrorUsesUpItsIndex) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(3, {1}).Enumerate()));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_TRUE(results[2]->Equals(Pair(2, 2)));
}

TEST(EnumerateDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(2).Enumerate().Enumerate(), StatusCode::kInvalidArgument,
                       "already has a component named 'index'");
}

TEST(EnumerateDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Enumerate()), 3);
}

}  // namespace
}  // namespace sluice

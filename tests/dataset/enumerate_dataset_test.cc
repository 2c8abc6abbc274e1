#include "sluice/dataset/enumerate_dataset.h"

#include "contract.h"
#include "sluice/dataset/iterator_state.h"

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

// Indices never wrap: the element after INT64_MAX is an OutOfRange error,
// and so is every later one (each consumes its input element); the end of
// the input is still the end. The state survives a save and restore.
TEST(EnumerateDatasetTest, IndexPastInt64MaxIsOutOfRange) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(4).Enumerate(INT64_MAX - 1));
  auto results = testing::CollectResults(dataset);
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0]->Equals(Pair(INT64_MAX - 1, 0)));
  EXPECT_TRUE(results[1]->Equals(Pair(INT64_MAX, 1)));
  for (int i = 2; i < 4; ++i) {
    ASSERT_FALSE(results[i].ok()) << "element " << i << " wrapped to " << results[i]->DebugString();
    EXPECT_EQ(results[i].status().code(), StatusCode::kOutOfRange);
    EXPECT_NE(results[i].status().message().find("would pass INT64_MAX"), std::string::npos) << results[i].status();
  }

  auto it = dataset->MakeIterator();
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(it->GetNext().ok());
  const std::string state = testing::Ok(SaveIteratorState(*it));
  auto resumed = dataset->MakeIterator();
  ASSERT_TRUE(RestoreIteratorState(*resumed, state).ok());
  EXPECT_EQ(resumed->GetNext().status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace sluice

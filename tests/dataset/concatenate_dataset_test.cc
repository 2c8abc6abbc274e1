#include "sluice/dataset/concatenate_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(ConcatenateDatasetTest, DocumentedExample) {
  auto a = Pipeline::Range({.start = 1, .stop = 4});
  auto b = Pipeline::Range({.start = 4, .stop = 8});
  testing::ExpectProduces(a.Concatenate(b), testing::Ints({1, 2, 3, 4, 5, 6, 7}));
}

TEST(ConcatenateDatasetTest, SpecIsTheMostSpecificCommonSpec) {
  auto a = Pipeline::FromSlices({{"x", Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2})}});
  auto b = Pipeline::FromSlices({{"x", Tensor::FromVector<float>({1, 2, 3}, Shape{1, 3})}});
  DatasetPtr dataset = testing::Build(a.Concatenate(b));
  EXPECT_EQ(dataset->element_spec().ToString(), "(x: float32[?])");
  EXPECT_EQ(dataset->cardinality(), 3);
  EXPECT_EQ(testing::Collect(dataset).size(), 3u);
}

TEST(ConcatenateDatasetTest, Cardinality) {
  auto a = Pipeline::Range(3);
  EXPECT_EQ(testing::Build(a.Concatenate(a.Repeat()))->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(a.Concatenate(a.Filter([](const Element&) -> Result<bool> { return true; })))->cardinality(),
            kUnknownCardinality);
}

TEST(ConcatenateDatasetTest, ErrorsPassThroughFromBothInputs) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(2, {0}).Concatenate(testing::FailingRange(2, {1}))));
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectFailedElement(results[0], 0);
  testing::ExpectFailedElement(results[3], 1);
}

TEST(ConcatenateDatasetTest, RunsSpanBothInputs) {
  auto a = Pipeline::FromSlices({{"", testing::Vec({1, 2, 3})}});
  testing::ExpectRunsMatchElements(testing::Build(a.Concatenate(a)), 2);
}

TEST(ConcatenateDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Concatenate(Pipeline::Range({.stop = 3, .dtype = DType::kFloat32})),
                       StatusCode::kInvalidArgument, "Two datasets to concatenate have different types");
  testing::ExpectError(Pipeline::Range(3).Concatenate(Pipeline::Range(2).Zip({Pipeline::Range(2)})),
                       StatusCode::kInvalidArgument, "Two datasets to concatenate have different types");
}

TEST(ConcatenateDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(5).Prefetch(1).Concatenate(Pipeline::Range(5).Prefetch(1))), 7);
}

}  // namespace
}  // namespace sluice

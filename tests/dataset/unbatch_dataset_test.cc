#include "sluice/dataset/unbatch_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(UnbatchDatasetTest, UndoesBatch) {
  testing::ExpectProduces(Pipeline::Range(7).Batch({.batch_size = 3}).Unbatch(), testing::IntRange(0, 7));
}

TEST(UnbatchDatasetTest, SplitsEveryComponent) {
  auto pipeline = Pipeline::FromTensors({{"x", Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2})},
                                         {"y", testing::Vec({5, 6})}})
                      .Unbatch();
  testing::ExpectProduces(pipeline, {Element{Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int64_t>(5)},
                                     Element{Tensor::FromVector<float>({3, 4}), Tensor::Scalar<int64_t>(6)}});
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->element_spec().ToString(), "(x: float32[2], y: int64[])");
  EXPECT_EQ(dataset->cardinality(), 2);
}

TEST(UnbatchDatasetTest, CardinalityUnknownWithoutAKnownBatchDimension) {
  EXPECT_EQ(testing::Build(Pipeline::Range(7).Batch({.batch_size = 3}).Unbatch())->cardinality(), kUnknownCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(7).Batch({.batch_size = 3, .drop_remainder = true}).Unbatch())->cardinality(), 6);
}

TEST(UnbatchDatasetTest, RunsAreSlicesOfTheInputElement) {
  testing::ExpectRunsMatchElements(testing::Build(Pipeline::Range(10).Batch({.batch_size = 4}).Unbatch()), 3);
}

TEST(UnbatchDatasetTest, MismatchedBatchSizesAreAnError) {
  auto pipeline = Pipeline::FromTensors({{"", testing::Vec({1, 2})}, {"", testing::Vec({1, 2, 3})}}).Unbatch();
  auto results = testing::CollectResults(testing::Build(pipeline));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_NE(results[0].status().message().find(
                "Input element must have the same batch size in each component. Component 0 had size 2 but component 1 had size, 3."),
            std::string::npos)
      << results[0].status();
}

TEST(UnbatchDatasetTest, ErrorMidStream) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(6, {2}).Batch({.batch_size = 2}).Unbatch()));
  // batches: [0, 1], error (element 2), [3, 4], [5]
  ASSERT_EQ(results.size(), 6u);
  testing::ExpectFailedElement(results[2], 2);
  EXPECT_EQ(testing::Values({*results[0], *results[1], *results[3], *results[4], *results[5]}),
            (std::vector<int64_t>{0, 1, 3, 4, 5}));
}

TEST(UnbatchDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Unbatch(), StatusCode::kInvalidArgument, "non-scalar");
}

TEST(UnbatchDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Batch({.batch_size = 10}).Prefetch(2).Unbatch()), 15);
}

}  // namespace
}  // namespace sluice

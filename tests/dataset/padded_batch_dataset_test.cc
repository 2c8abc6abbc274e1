#include "dataset/padded_batch_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

// range(1, n) mapped to x -> fill([x], x): tf.data's documented padded_batch input.
Pipeline Ragged(int64_t n) {
  return Pipeline::Range({.start = 1, .stop = n}).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        return Element{Tensor::FromVector(std::vector<int64_t>(x, x))};
      },
      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
}

Element Matrix(std::vector<int64_t> values, int64_t rows, int64_t cols) {
  return Element{Tensor::FromVector(values, Shape{rows, cols})};
}

// tf.data's documented examples for Dataset.padded_batch.
TEST(PaddedBatchDatasetTest, PadsToTheLongestInTheBatch) {
  testing::ExpectProduces(Ragged(5).PaddedBatch({.batch_size = 2}),
                          {Matrix({1, 0, 2, 2}, 2, 2), Matrix({3, 3, 3, 0, 4, 4, 4, 4}, 2, 4)});
}

TEST(PaddedBatchDatasetTest, PadsToAFixedShape) {
  testing::ExpectProduces(Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{5}}}),
                          {Matrix({1, 0, 0, 0, 0, 2, 2, 0, 0, 0}, 2, 5), Matrix({3, 3, 3, 0, 0, 4, 4, 4, 4, 0}, 2, 5)});
}

TEST(PaddedBatchDatasetTest, PaddingValue) {
  testing::ExpectProduces(
      Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{-1}},
                             .padding_values = {Tensor::Scalar<int64_t>(-1)}}),
      {Matrix({1, -1, 2, 2}, 2, 2), Matrix({3, 3, 3, -1, 4, 4, 4, 4}, 2, 4)});
}

TEST(PaddedBatchDatasetTest, MultiDimensionalAndStringComponents) {
  auto pipeline = Pipeline::Range({.start = 1, .stop = 3}).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        std::vector<int64_t> grid(x * x, x);
        return Element{Tensor::FromVector(grid, Shape{x, x}),
                       Tensor::FromVector(std::vector<std::string>(x, std::string(x, 'a')))};
      },
      {.output_spec = ElementSpec{{"m", DType::kInt64, PartialShape{-1, -1}}, {"s", DType::kString, PartialShape{-1}}}});
  testing::ExpectProduces(pipeline.PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{-1, 3}, PartialShape{-1}}}),
                          {Element{Tensor::FromVector<int64_t>({1, 0, 0, 0, 0, 0, 2, 2, 0, 2, 2, 0}, Shape{2, 2, 3}),
                                   Tensor::FromVector<std::string>({"a", "", "aa", "aa"}, Shape{2, 2})}});
}

TEST(PaddedBatchDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(Ragged(6).PaddedBatch({.batch_size = 2, .drop_remainder = true}));
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[2, ?])");
  EXPECT_EQ(dataset->cardinality(), 2);
  EXPECT_EQ(testing::Build(Ragged(6).PaddedBatch({.batch_size = 2}))->cardinality(), 3);
  EXPECT_EQ(testing::Build(Ragged(6).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{7}}}))
                ->element_spec()
                .ToString(),
            "(int64[?, 7])");
}

TEST(PaddedBatchDatasetTest, TooLongElementIsDataLoss) {
  auto results = testing::CollectResults(
      testing::Build(Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{3}}})));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].status().code(), StatusCode::kDataLoss);
  EXPECT_NE(results[1].status().message().find("Attempted to pad to a smaller size than the input element"),
            std::string::npos);
}

TEST(PaddedBatchDatasetTest, ErrorMidStream) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(5, {1}).PaddedBatch({.batch_size = 2})));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[0], 1);
  EXPECT_TRUE(results[1]->Equals(Element{testing::Vec({2, 3})}));
  EXPECT_TRUE(results[2]->Equals(Element{testing::Vec({4})}));
}

TEST(PaddedBatchDatasetTest, InvalidArguments) {
  using testing::ExpectError;
  ExpectError(Ragged(3).PaddedBatch({.batch_size = 0}), StatusCode::kInvalidArgument, "Batch size must be greater");
  ExpectError(Ragged(3).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{3}, PartialShape{3}}}),
              StatusCode::kInvalidArgument, "Number of padded shapes (2) must match the number of components");
  ExpectError(Ragged(3).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{3, 3}}}),
              StatusCode::kInvalidArgument, "rank");
  ExpectError(Ragged(3).PaddedBatch({.batch_size = 2, .padding_values = {Tensor::Scalar(1.0f)}}),
              StatusCode::kInvalidArgument, "Mismatched type between padding value 0");
  ExpectError(Ragged(3).PaddedBatch({.batch_size = 2, .padding_values = {testing::Vec({1})}}),
              StatusCode::kInvalidArgument, "All padding values must be scalars");
  auto unknown_rank = Pipeline::Range(3).Map([](Element e) -> Result<Element> { return e; },
                                            {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape::UnknownRank()}}});
  ExpectError(unknown_rank.PaddedBatch({.batch_size = 2}), StatusCode::kInvalidArgument,
              "padded_shapes must be set");
}

TEST(PaddedBatchDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Ragged(50).PaddedBatch({.batch_size = 4})), 2);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/padded_batch_dataset.h"

#include "contract.h"
#include "sluice/dataset/runtime.h"

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

TEST(PaddedBatchDatasetTest, ElementsOfTheMaximumRankAreAnError) {
  const Tensor rank8 = Tensor::Allocate(DType::kInt64, Shape{1, 1, 1, 1, 1, 1, 1, 1});
  testing::ExpectError(Pipeline::FromTensors({{"", rank8}}).PaddedBatch({.batch_size = 2}),
                       StatusCode::kInvalidArgument, "padded_batch: component 0 has shape");
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

// The first error of an iterator over `dataset`, which must fail.
Status FirstError(const DatasetPtr& dataset, IteratorContext ctx = {}) {
  auto it = dataset->MakeIterator(std::move(ctx));
  Result<std::optional<Element>> next = it->GetNext();
  EXPECT_FALSE(next.ok()) << "expected an error";
  return next.ok() ? OkStatus() : next.status();
}

// Padded sizes are checked, never wrapped: a padded shape whose row bytes
// overflow is rejected when the dataset is made; a batch of rows that
// overflows is InvalidArgument; one above the RAM budget is
// ResourceExhausted; each names the component and the shape.
TEST(PaddedBatchDatasetTest, PaddedSizesAreCheckedAgainstOverflowAndTheRamBudget) {
  constexpr int64_t k2To61 = int64_t{1} << 61;
  testing::ExpectError(Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{k2To61}}}),
                       StatusCode::kInvalidArgument, "padded_batch: padded shape [2305843009213693952] for component 0");
  testing::ExpectError(Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{-2}}}),
                       StatusCode::kInvalidArgument, "has dimension 0 = -2");
  // 2^59 int64 values are 2^62 bytes: a row fits int64, two rows don't.
  Status two_rows = FirstError(testing::Build(
      Ragged(5).PaddedBatch({.batch_size = 2, .padded_shapes = {PartialShape{int64_t{1} << 59}}})));
  EXPECT_EQ(two_rows.code(), StatusCode::kInvalidArgument) << two_rows;
  EXPECT_NE(two_rows.message().find("padded_batch: component 0"), std::string::npos) << two_rows;
  EXPECT_NE(two_rows.message().find("[2, 576460752303423488]"), std::string::npos) << two_rows;
  // The last batch has one row: not filled, so it is checked when padded.
  DatasetPtr last = testing::Build(Ragged(4).Skip(2).PaddedBatch(
      {.batch_size = 2, .padded_shapes = {PartialShape{int64_t{1000000000000}}}}));
  Status one_row = FirstError(last);
  EXPECT_EQ(one_row.code(), StatusCode::kResourceExhausted) << one_row;
  EXPECT_NE(one_row.message().find("padded_batch: component 0: a tensor of int64[1, 1000000000000] takes "
                                   "8000000000000 bytes, above the RAM budget"),
            std::string::npos)
      << one_row;
}

// A batch that the input fills is checked after its first row, so a batch
// size of 10^12 on an infinite input fails at once instead of gathering rows
// until memory runs out; with unknown cardinality, the rows gathered are
// charged against the RAM budget as they arrive.
TEST(PaddedBatchDatasetTest, BatchAboveTheRamBudgetIsResourceExhausted) {
  Status infinite = FirstError(testing::Build(Ragged(4).Repeat().PaddedBatch({.batch_size = 1000000000000})));
  EXPECT_EQ(infinite.code(), StatusCode::kResourceExhausted) << infinite;
  EXPECT_NE(infinite.message().find("padded_batch: component 0: a batch of 1000000000000 elements padded to [?] "
                                    "takes at least 8000000000000 bytes, above the RAM budget"),
            std::string::npos)
      << infinite;

  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 64 * 1024});
  Status gathered = FirstError(
      testing::Build(Ragged(100000).Filter([](const Element&) -> Result<bool> { return true; }).PaddedBatch(
          {.batch_size = 1 << 20})),
      ctx);
  EXPECT_EQ(gathered.code(), StatusCode::kResourceExhausted) << gathered;
  EXPECT_NE(gathered.message().find("elements gathered for a batch of 1048576 hold"), std::string::npos) << gathered;
  EXPECT_NE(gathered.message().find("above the RAM budget (65536 bytes)"), std::string::npos) << gathered;
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/ragged_batch_dataset.h"

#include "contract.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// Elements {tokens: int64[x] of x's, label: x} for x in [1, n): tf.data's
// ragged_batch example (range(6).map(tf.range)) with a label beside it.
Pipeline Tokens(int64_t n) {
  return Pipeline::Range({.start = 1, .stop = n})
      .Map(
          [](Element e) -> Result<Element> {
            const int64_t x = e[0].scalar<int64_t>();
            return Element{Tensor::FromVector(std::vector<int64_t>(x, x)), Tensor::Scalar<int64_t>(x)};
          },
          {.output_spec = ElementSpec{{"tokens", DType::kInt64, PartialShape{-1}}, {"label", DType::kInt64, Shape{}}}});
}

Element Batch(std::vector<int64_t> values, std::vector<int64_t> row_lengths, std::vector<int64_t> labels) {
  return Element{Tensor::FromVector(values), Tensor::FromVector(row_lengths), Tensor::FromVector(labels)};
}

TEST(RaggedBatchDatasetTest, VariableLengthComponentsBecomeValuesAndRowLengths) {
  const DatasetPtr dataset = Build(Tokens(6).RaggedBatch({.batch_size = 2}));
  EXPECT_EQ(dataset->element_spec().ToString(), "(tokens: int64[?], tokens/row_lengths: int64[?], label: int64[?])");
  EXPECT_EQ(dataset->cardinality(), 3);
  ExpectProduces(dataset, {Batch({1, 2, 2}, {1, 2}, {1, 2}), Batch({3, 3, 3, 4, 4, 4, 4}, {3, 4}, {3, 4}),
                           Batch({5, 5, 5, 5, 5}, {5}, {5})});
  const DatasetPtr dropped = Build(Tokens(6).RaggedBatch({.batch_size = 2, .drop_remainder = true}));
  EXPECT_EQ(dropped->element_spec().ToString(), "(tokens: int64[?], tokens/row_lengths: int64[2], label: int64[2])");
  EXPECT_EQ(Collect(dropped).size(), 2u);
}

// Empty rows, strings, and rows of rank 2 whose inner dim agrees; a
// component of fixed shape is stacked.
TEST(RaggedBatchDatasetTest, EmptyRowsStringsAndInnerDims) {
  const Pipeline pipeline = Pipeline::Range(3).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        return Element{Tensor::FromVector(std::vector<std::string>(x, std::string(x + 1, 'w'))),
                       Tensor::FromVector(std::vector<int64_t>(2 * x, x), Shape{x, 2}),
                       Tensor::FromVector<int64_t>({x, -x})};
      },
      {.output_spec = ElementSpec{{"", DType::kString, PartialShape{-1}},
                                  {"", DType::kInt64, PartialShape{-1, 2}},
                                  {"", DType::kInt64, Shape{2}}}});
  const DatasetPtr dataset = Build(pipeline.RaggedBatch({.batch_size = 3}));
  EXPECT_EQ(dataset->element_spec().ToString(),
            "(string[?], 0/row_lengths: int64[?], int64[?, 2], 1/row_lengths: int64[?], int64[?, 2])");
  ExpectProduces(
      dataset,
      {Element{Tensor::FromVector<std::string>({"ww", "www", "www"}), Tensor::FromVector<int64_t>({0, 1, 2}),
               Tensor::FromVector<int64_t>({1, 1, 2, 2, 2, 2}, Shape{3, 2}), Tensor::FromVector<int64_t>({0, 1, 2}),
               Tensor::FromVector<int64_t>({0, 0, 1, -1, 2, -2}, Shape{3, 2})}});
}

TEST(RaggedBatchDatasetTest, RowsThatDifferBeyondTheirFirstDimAreAnError) {
  const Pipeline pipeline = Pipeline::Range(2).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>() + 1;
        return Element{Tensor::FromVector(std::vector<int64_t>(x * x, x), Shape{x, x})};
      },
      {.output_spec = ElementSpec{{"grid", DType::kInt64, PartialShape{-1, -1}}}});
  const std::vector<Result<Element>> results = CollectResults(Build(pipeline.RaggedBatch({.batch_size = 2})));
  ASSERT_EQ(results.size(), 1u);
  ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
               "ragged_batch: component grid: row 1 has shape [2, 2] and row 0 [1, 1]; the rows of a ragged "
               "component may differ only in their first dim");
}

TEST(RaggedBatchDatasetTest, InvalidArguments) {
  ExpectError(Tokens(3).RaggedBatch({.batch_size = 0}), StatusCode::kInvalidArgument,
              "ragged_batch: Batch size must be greater than zero (got 0).");
  const Pipeline unknown_rank =
      Pipeline::Range(2).Map([](Element e) -> Result<Element> { return e; },
                             {.output_spec = ElementSpec{{"x", DType::kInt64, PartialShape::UnknownRank()}}});
  ExpectError(unknown_rank.RaggedBatch({.batch_size = 2}), StatusCode::kInvalidArgument,
              "ragged_batch: component x has unknown rank");
  const Pipeline taken = Pipeline::Range(2).Map(
      [](Element e) -> Result<Element> {
        return Element{Tensor::FromVector<int64_t>({1}), Tensor::Scalar<int64_t>(1)};
      },
      {.output_spec = ElementSpec{{"x", DType::kInt64, PartialShape{-1}}, {"x/row_lengths", DType::kInt64, Shape{}}}});
  ExpectError(taken.RaggedBatch({.batch_size = 2}), StatusCode::kInvalidArgument,
              "component x's row lengths would be named 'x/row_lengths', a name the input already has");
}

TEST(RaggedBatchDatasetTest, BatchesAboveTheRamBudgetAreResourceExhausted) {
  const Pipeline big = Pipeline::Range(4).Map(
      [](Element e) -> Result<Element> { return Element{Tensor::Allocate(DType::kUInt8, Shape{400 << 10})}; },
      {.output_spec = ElementSpec{{"bytes", DType::kUInt8, PartialShape{-1}}}});
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  auto it = Build(big.RaggedBatch({.batch_size = 4}))->MakeIterator(ctx);
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results[0].status().code(), StatusCode::kResourceExhausted) << results[0].status();
}

TEST(RaggedBatchDatasetTest, ErrorsFromTheInputPassThrough) {
  const std::vector<Result<Element>> results =
      CollectResults(Build(FailingRange(5, {2}).RaggedBatch({.batch_size = 2})));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  EXPECT_FALSE(results[1].ok());
  EXPECT_TRUE(results[2].ok());
}

TEST(RaggedBatchDatasetTest, SpecRoundTripAndResume) {
  const DatasetPtr from_spec = Ok(DatasetFromSpec(Ok(ParseSpecText(R"(
    ops { from_slices { components { name: "x" tensor { dtype: "int64" shape: [3] int_values: [1, 2, 3] } } } }
    ops { ragged_batch { batch_size: 2 drop_remainder: true } }
  )"))));
  ExpectProduces(from_spec, {Element{Tensor::FromVector<int64_t>({1, 2})}});
  const std::string written = SpecToText(Ok(DatasetToSpec(*from_spec)));
  EXPECT_NE(written.find("ragged_batch {\n    batch_size: 2\n    drop_remainder: true"), std::string::npos) << written;
  ExpectResumesEverywhere([] { return Tokens(8).RaggedBatch({.batch_size = 3}); });
}

TEST(RaggedBatchDatasetTest, EarlyDestructionIsClean) {
  ExpectEarlyDestructionIsClean(Build(Tokens(50).RaggedBatch({.batch_size = 4})), 3);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/sparse_batch_dataset.h"

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// One-component elements: `rows` as string vectors, named "w".
Pipeline Words(std::vector<std::vector<std::string>> rows) {
  auto shared = std::make_shared<const std::vector<std::vector<std::string>>>(std::move(rows));
  return Pipeline::Range(static_cast<int64_t>(shared->size()))
      .Map([shared](
               Element e) -> Result<Element> { return Element{Tensor::FromVector((*shared)[e[0].scalar<int64_t>()])}; },
           {.output_spec = ElementSpec{{"w", DType::kString, PartialShape{-1}}}});
}

Element Sparse(Tensor values, std::vector<int64_t> indices, int64_t columns, std::vector<int64_t> dense_shape) {
  const int64_t rows = static_cast<int64_t>(indices.size()) / columns;
  return Element{std::move(values), Tensor::FromVector(indices, Shape{rows, columns}), Tensor::FromVector(dense_shape)};
}

// tf.data's documented example.
TEST(SparseBatchDatasetTest, DocumentedExample) {
  const DatasetPtr dataset = Build(
      Words({{"a", "b", "c"}, {"a", "b"}, {"a", "b", "c", "d"}}).SparseBatch({.batch_size = 2, .row_shape = {6}}));
  EXPECT_EQ(dataset->element_spec().ToString(), "(w: string[?], w/indices: int64[?, 2], w/dense_shape: int64[2])");
  EXPECT_EQ(dataset->cardinality(), 2);
  ExpectProduces(
      dataset,
      {Sparse(Tensor::FromVector<std::string>({"a", "b", "c", "a", "b"}), {0, 0, 0, 1, 0, 2, 1, 0, 1, 1}, 2, {2, 6}),
       Sparse(Tensor::FromVector<std::string>({"a", "b", "c", "d"}), {0, 0, 0, 1, 0, 2, 0, 3}, 2, {1, 6})});
}

// Rank 2 in row-major order, a -1 dim taking the batch's largest, and empty rows.
TEST(SparseBatchDatasetTest, RowMajorIndicesAndUnknownDims) {
  const Pipeline grids = Pipeline::Range(3).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        std::vector<float> values(x * 2);
        for (int64_t i = 0; i < x * 2; ++i) values[i] = static_cast<float>(10 * x + i);
        return Element{Tensor::FromVector(values, Shape{x, 2})};
      },
      {.output_spec = ElementSpec{{"", DType::kFloat32, PartialShape{-1, 2}}}});
  const DatasetPtr dataset = Build(grids.SparseBatch({.batch_size = 3, .row_shape = {-1, 3}}));
  EXPECT_EQ(dataset->element_spec().ToString(), "(float32[?], 0/indices: int64[?, 3], 0/dense_shape: int64[3])");
  ExpectProduces(dataset, {Sparse(Tensor::FromVector<float>({10, 11, 20, 21, 22, 23}),
                                  {1, 0, 0, 1, 0, 1, 2, 0, 0, 2, 0, 1, 2, 1, 0, 2, 1, 1}, 3, {3, 2, 3})});
  // Scalars: the index is the position in the batch.
  ExpectProduces(Pipeline::Range(3).SparseBatch({.batch_size = 2}),
                 {Sparse(Tensor::FromVector<int64_t>({0, 1}), {0, 1}, 1, {2}),
                  Sparse(Tensor::FromVector<int64_t>({2}), {0}, 1, {1})});
}

TEST(SparseBatchDatasetTest, ElementsThatDoNotFitTheRowShapeFailTheirBatch) {
  const std::vector<Result<Element>> larger =
      CollectResults(Build(Words({{"a"}, {"a", "b", "c"}, {"x"}}).SparseBatch({.batch_size = 2, .row_shape = {2}})));
  ASSERT_EQ(larger.size(), 2u);
  ExpectStatus(larger[0].status(), StatusCode::kInvalidArgument,
               "sparse_batch: Input element had shape ([3]) that is larger than the row shape ([2]).");
  EXPECT_TRUE(larger[1].ok() && larger[1]->Equals(Sparse(Tensor::FromVector<std::string>({"x"}), {0, 0}, 2, {1, 2})));

  const Pipeline unknown_rank = Pipeline::Range(2).Map(
      [](Element e) -> Result<Element> {
        if (e[0].scalar<int64_t>() == 0) return Element{Tensor::FromVector<int64_t>({1, 2})};
        return Element{Tensor::FromVector<int64_t>({1, 2}, Shape{1, 2})};
      },
      {.output_spec = ElementSpec{{"x", DType::kInt64, PartialShape::UnknownRank()}}});
  const std::vector<Result<Element>> rank =
      CollectResults(Build(unknown_rank.SparseBatch({.batch_size = 2, .row_shape = {4}})));
  ASSERT_EQ(rank.size(), 1u);
  ExpectStatus(rank[0].status(), StatusCode::kInvalidArgument,
               "sparse_batch: Input element had shape ([1, 2]) that is incompatible with the row shape ([4]).");
}

TEST(SparseBatchDatasetTest, InvalidArguments) {
  const Pipeline words = Words({{"a"}});
  ExpectError(words.SparseBatch({.batch_size = 0, .row_shape = {2}}), StatusCode::kInvalidArgument,
              "sparse_batch: Batch size must be greater than zero (got 0).");
  ExpectError(words.SparseBatch({.batch_size = 2, .row_shape = {-2}}), StatusCode::kInvalidArgument,
              "sparse_batch: row_shape dim 0 is -2; dims must be >= 0, or -1 for the batch's largest");
  ExpectError(words.SparseBatch({.batch_size = 2, .row_shape = {2, 2}}), StatusCode::kInvalidArgument,
              "sparse_batch: the input's elements have rank 1 (w: string[?]) but row_shape [2, 2] has rank 2");
  ExpectError(words.SparseBatch({.batch_size = 2, .row_shape = std::vector<int64_t>(8, 1)}),
              StatusCode::kInvalidArgument, "row_shape has 8 dims; the dense shape needs one more");
  ExpectError(words.Zip({words.Map(MakeRenameFunction({"v"}))}).SparseBatch({.batch_size = 2, .row_shape = {2}}),
              StatusCode::kInvalidArgument, "sparse_batch: only supports inputs with a single component");
}

TEST(SparseBatchDatasetTest, BatchesAboveTheRamBudgetAreResourceExhausted) {
  const Pipeline big = Pipeline::Range(4).Map(
      [](Element e) -> Result<Element> { return Element{Tensor::Allocate(DType::kUInt8, Shape{200 << 10})}; },
      {.output_spec = ElementSpec{{"bytes", DType::kUInt8, PartialShape{-1}}}});
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  // The rows fit (800 KiB); their indices, 16 bytes a value, do not.
  auto it = Build(big.SparseBatch({.batch_size = 4, .row_shape = {-1}}))->MakeIterator(ctx);
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kResourceExhausted) << results[0].status();
  EXPECT_NE(results[0].status().message().find("sparse_batch: indices"), std::string::npos) << results[0].status();
}

TEST(SparseBatchDatasetTest, ErrorsFromTheInputPassThrough) {
  const std::vector<Result<Element>> results =
      CollectResults(Build(FailingRange(5, {2}).SparseBatch({.batch_size = 2})));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok());
  ExpectFailedElement(results[1], 2);
  EXPECT_TRUE(results[2].ok());
}

TEST(SparseBatchDatasetTest, SpecRoundTripAndResume) {
  const DatasetPtr from_spec = Ok(DatasetFromSpec(Ok(ParseSpecText(R"(
    ops { range { stop: 3 } }
    ops { sparse_batch { batch_size: 2 } }
  )"))));
  ExpectProduces(from_spec, {Sparse(Tensor::FromVector<int64_t>({0, 1}), {0, 1}, 1, {2}),
                             Sparse(Tensor::FromVector<int64_t>({2}), {0}, 1, {1})});
  const std::string written = SpecToText(
      Ok(DatasetToSpec(*Build(Pipeline::FromSlices({{"", Tensor::FromVector<int64_t>({1, 2, 3, 4}, Shape{2, 2})}})
                                  .SparseBatch({.batch_size = 2, .row_shape = {-1}})))));
  EXPECT_NE(written.find("sparse_batch {\n    batch_size: 2\n    row_shape: -1"), std::string::npos) << written;
  ExpectResumesEverywhere([] {
    return Words({{"a"}, {"b", "c"}, {}, {"d"}, {"e", "f", "g"}}).SparseBatch({.batch_size = 2, .row_shape = {-1}});
  });
}

TEST(SparseBatchDatasetTest, EarlyDestructionIsClean) {
  ExpectEarlyDestructionIsClean(Build(Pipeline::Range(100).Prefetch(4).SparseBatch({.batch_size = 4})), 3);
}

}  // namespace
}  // namespace sluice

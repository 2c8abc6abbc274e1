#include "sluice/dataset/batch_dataset.h"

#include "contract.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using testing::Vec;

std::vector<Element> Batches(std::initializer_list<std::vector<int64_t>> batches) {
  std::vector<Element> out;
  for (const auto& b : batches) out.push_back(Element{Vec(b)});
  return out;
}

// tf.data's documented examples for Dataset.batch.
TEST(BatchDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Range(8).Batch({.batch_size = 3}), Batches({{0, 1, 2}, {3, 4, 5}, {6, 7}}));
  testing::ExpectProduces(Pipeline::Range(8).Batch({.batch_size = 3, .drop_remainder = true}),
                          Batches({{0, 1, 2}, {3, 4, 5}}));
}

TEST(BatchDatasetTest, SpecAndCardinality) {
  DatasetPtr keep = testing::Build(Pipeline::Range(8).Batch({.batch_size = 3}));
  EXPECT_EQ(keep->element_spec().ToString(), "(int64[?])");
  EXPECT_EQ(keep->cardinality(), 3);
  DatasetPtr drop = testing::Build(Pipeline::Range(8).Batch({.batch_size = 3, .drop_remainder = true}));
  EXPECT_EQ(drop->element_spec().ToString(), "(int64[3])");
  EXPECT_EQ(drop->cardinality(), 2);
  EXPECT_EQ((*Pipeline::Range(8).Repeat().Batch({.batch_size = 3}).Build())->cardinality(), kInfiniteCardinality);
  EXPECT_EQ((*Pipeline::Range(8).Filter([](const Element&) -> Result<bool> { return true; })
                  .Batch({.batch_size = 3})
                  .Build())
                ->cardinality(),
            kUnknownCardinality);
}

TEST(BatchDatasetTest, BatchesMultiComponentElementsFromRuns) {
  Tensor x = Tensor::FromVector<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{5, 2});
  Tensor s = Tensor::FromVector<std::string>({"a", "b", "c", "d", "e"});
  auto pipeline = Pipeline::FromSlices({{"x", x}, {"s", s}}).Batch({.batch_size = 2});
  std::vector<Element> expected = {
      Element{Tensor::FromVector<float>({0, 1, 2, 3}, Shape{2, 2}), Tensor::FromVector<std::string>({"a", "b"})},
      Element{Tensor::FromVector<float>({4, 5, 6, 7}, Shape{2, 2}), Tensor::FromVector<std::string>({"c", "d"})},
      Element{Tensor::FromVector<float>({8, 9}, Shape{1, 2}), Tensor::FromVector<std::string>({"e"})}};
  testing::ExpectProduces(pipeline, expected);
}

TEST(BatchDatasetTest, MismatchedShapesNameComponentAndBothShapes) {
  auto pipeline = Pipeline::Range(4).Map([](Element e) -> Result<Element> {
    const int64_t n = e[0].scalar<int64_t>() == 2 ? 4 : 3;
    return Element{Tensor::Allocate(DType::kInt64, Shape{n})};
  }, {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
  auto results = testing::CollectResults(testing::Build(pipeline.Batch({.batch_size = 4})));
  // The failed batch consumed elements 0..2; element 3 starts the next one.
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1]->operator[](0).shape(), (Shape{1, 3}));
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find(
                "Cannot batch tensors with different shapes in component 0. First element had shape [3] and "
                "element 2 had shape [4]."),
            std::string::npos)
      << results[0].status();
}

TEST(BatchDatasetTest, ErrorMidBatchDropsTheRowsGatheredSoFar) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(7, {4}).Batch({.batch_size = 3})));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0]->Equals(Element{Vec({0, 1, 2})}));
  testing::ExpectFailedElement(results[1], 4);
  EXPECT_TRUE(results[2]->Equals(Element{Vec({5, 6})}));
}

TEST(BatchDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Batch({.batch_size = 0}), StatusCode::kInvalidArgument,
                       "Batch size must be greater than zero");
}

// A batch adds a dimension: elements of rank kMaxRank can't be batched. A
// known rank is refused when the op is made, an unknown one per batch.
TEST(BatchDatasetTest, ElementsOfTheMaximumRankAreAnError) {
  const Tensor rank8 = Tensor::Allocate(DType::kInt64, Shape{1, 1, 1, 1, 1, 1, 1, 1});
  testing::ExpectError(Pipeline::FromTensors({{"", rank8}}).Batch({.batch_size = 2}), StatusCode::kInvalidArgument,
                       "batch: component 0 has shape [1, 1, 1, 1, 1, 1, 1, 1] of rank 8; batching adds a dimension");
  Pipeline batched = Pipeline::Range(3);
  for (int i = 0; i < kMaxRank; ++i) batched = batched.Batch({.batch_size = 1});
  EXPECT_TRUE(batched.Build().ok()) << batched.Build().status();
  testing::ExpectError(batched.Batch({.batch_size = 1}), StatusCode::kInvalidArgument, "of rank 8");
  auto unknown_rank = Pipeline::Range(2)
                          .Map([rank8](Element) -> Result<Element> { return Element{rank8}; },
                               {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape::UnknownRank()}}})
                          .Batch({.batch_size = 2});
  auto results = testing::CollectResults(testing::Build(unknown_rank));
  ASSERT_EQ(results.size(), 2u);  // an error per element
  for (const Result<Element>& result : results) {
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << result.status();
    EXPECT_NE(result.status().message().find("more than 8 dimensions"), std::string::npos) << result.status();
  }
}

TEST(BatchDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Batch({.batch_size = 7})), 2);
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(100000).Batch({.batch_size = 7, .num_parallel_calls = 4})), 2);
}

// ---- parallel batch ----

const std::vector<int64_t> kParallelisms = {1, 2, 3, 4, 5, 6, 7, 8, kAutotune};

TEST(BatchDatasetTest, ParallelEqualsSequentialAtEveryParallelism) {
  Tensor x = Tensor::FromVector<float>(std::vector<float>(2 * 101, 1.5f), Shape{101, 2});
  Tensor s = Tensor::FromVector<std::string>(std::vector<std::string>(101, "row"));
  for (bool drop_remainder : {false, true}) {
    const std::vector<Element> expected = testing::Collect(
        Pipeline::FromSlices({{"x", x}, {"s", s}}).Batch({.batch_size = 8, .drop_remainder = drop_remainder}));
    for (int64_t parallelism : kParallelisms) {
      SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism, " drop_remainder=", drop_remainder));
      testing::ExpectProduces(Pipeline::FromSlices({{"x", x}, {"s", s}})
                                  .Batch({.batch_size = 8,
                                          .drop_remainder = drop_remainder,
                                          .num_parallel_calls = parallelism}),
                              expected);
    }
  }
  testing::ExpectProduces(Pipeline::Range(8).Batch({.batch_size = 3, .num_parallel_calls = 2}),
                          Batches({{0, 1, 2}, {3, 4, 5}, {6, 7}}));
}

TEST(BatchDatasetTest, ParallelErrorMidBatchDropsTheRowsGatheredSoFar) {
  for (int64_t parallelism : {1, 4}) {
    auto results = testing::CollectResults(testing::Build(
        testing::FailingRange(7, {4}).Batch({.batch_size = 3, .num_parallel_calls = parallelism})));
    ASSERT_EQ(results.size(), 3u);
    EXPECT_TRUE(results[0]->Equals(Element{Vec({0, 1, 2})}));
    testing::ExpectFailedElement(results[1], 4);
    EXPECT_TRUE(results[2]->Equals(Element{Vec({5, 6})}));
  }
}

// A parallel batch reads all of a batch's rows before stacking them (as
// tf.data's batch does), so a shape mismatch fails the whole batch.
TEST(BatchDatasetTest, ParallelMismatchedShapesFailTheWholeBatch) {
  auto pipeline = Pipeline::Range(5).Map([](Element e) -> Result<Element> {
    const int64_t n = e[0].scalar<int64_t>() == 2 ? 4 : 3;
    return Element{Tensor::Allocate(DType::kInt64, Shape{n})};
  }, {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
  auto results = testing::CollectResults(testing::Build(pipeline.Batch({.batch_size = 4, .num_parallel_calls = 2})));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_NE(results[0].status().message().find("Cannot batch tensors with different shapes in component 0. First "
                                               "element had shape [3] and element 2 had shape [4]."),
            std::string::npos)
      << results[0].status();
  EXPECT_EQ(results[1]->operator[](0).shape(), (Shape{1, 3}));
}

TEST(BatchDatasetTest, ParallelInvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Batch({.batch_size = 2, .num_parallel_calls = -7}),
                       StatusCode::kInvalidArgument, "batch: num_parallel_calls must be >= 1");
}

// A batch size far above what the input holds gives one batch of what it
// holds: the batch is allocated for the rows that come, not batch_size rows
// (2^61 int64 rows would take 2^64 bytes).
TEST(BatchDatasetTest, HugeBatchSizeOnAFiniteInputBatchesWhatThereIs) {
  constexpr int64_t k2To61 = int64_t{1} << 61;
  testing::ExpectProduces(Pipeline::Range(20).Batch({.batch_size = k2To61}), {Element{Vec(testing::Values(testing::IntRange(0, 20)))}});
  const auto all = [](const Element&) -> Result<bool> { return true; };
  // Unknown cardinality: the batch grows past its first allocation.
  testing::ExpectProduces(Pipeline::Range(10000).Filter(all).Batch({.batch_size = k2To61}),
                          {Element{Vec(testing::Values(testing::IntRange(0, 10000)))}});
  std::vector<std::string> words;
  for (int i = 0; i < 5000; ++i) words.push_back("w" + std::to_string(i));
  std::vector<Element> batches =
      testing::Collect(Pipeline::FromSlices({{"w", Tensor::FromVector(words)}}).Filter(all).Batch({.batch_size = 1 << 20}));
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector(words)));
  EXPECT_EQ(testing::Build(Pipeline::Range(20).Batch({.batch_size = INT64_MAX}))->cardinality(), 1);
  EXPECT_EQ(testing::Build(Pipeline::Range(20).Batch({.batch_size = INT64_MAX, .drop_remainder = true}))->cardinality(), 0);
  EXPECT_EQ(BatchedCardinality(INT64_MAX, INT64_MAX - 1, false), 2);
}

// A batch that can't fit in the RAM budget is ResourceExhausted for that
// batch, naming the component, never an abort: on an infinite input the
// batch is known to fill up, so it fails at once.
TEST(BatchDatasetTest, BatchAboveTheRamBudgetIsResourceExhausted) {
  DatasetPtr infinite = testing::Build(Pipeline::Range(8).Repeat().Batch({.batch_size = 1000000000000}));
  auto it = infinite->MakeIterator();  // the default budget: half the host's available memory
  Result<std::optional<Element>> first = it->GetNext();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(first.status().message().find("batch: component 0 of a batch of 1000000000000 rows: a tensor of "
                                          "int64[1000000000000] takes 8000000000000 bytes, above the RAM budget"),
            std::string::npos)
      << first.status();

  // So does a parallel batch that large: it is stacked as it arrives, not
  // gathered first.
  auto parallel_it =
      testing::Build(Pipeline::Range(8).Repeat().Batch({.batch_size = 1000000000000, .num_parallel_calls = 2}))
          ->MakeIterator();
  EXPECT_EQ(parallel_it->GetNext().status().code(), StatusCode::kResourceExhausted);

  // A finite input that holds the whole batch fills it too.
  auto finite_it = testing::Build(Pipeline::Range(INT64_MAX).Batch({.batch_size = 1000000000000}))->MakeIterator();
  EXPECT_EQ(finite_it->GetNext().status().code(), StatusCode::kResourceExhausted);

  // Unknown cardinality: the batch grows until it would pass the budget.
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 64 * 1024});
  DatasetPtr growing = testing::Build(
      Pipeline::Range(100000).Filter([](const Element&) -> Result<bool> { return true; }).Batch({.batch_size = 1 << 20}));
  auto grow_it = growing->MakeIterator(ctx);
  Result<std::optional<Element>> grown = grow_it->GetNext();
  ASSERT_FALSE(grown.ok());
  EXPECT_EQ(grown.status().code(), StatusCode::kResourceExhausted) << grown.status();
  EXPECT_NE(grown.status().message().find("above the RAM budget (65536 bytes)"), std::string::npos) << grown.status();
}

}  // namespace
}  // namespace sluice

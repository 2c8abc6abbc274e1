#include "sluice/dataset/rebatch_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

std::vector<Element> Vecs(std::initializer_list<std::vector<int64_t>> rows) {
  std::vector<Element> out;
  for (const auto& row : rows) out.push_back(Element{testing::Vec(row)});
  return out;
}

// tf.data's documented examples (Dataset.rebatch).
TEST(RebatchDatasetTest, DocumentedExamples) {
  testing::ExpectProduces(Pipeline::Range(6).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3}}),
                          Vecs({{0, 1, 2}, {3, 4, 5}}));
  testing::ExpectProduces(Pipeline::Range(7).Batch({.batch_size = 4}).Rebatch({.batch_sizes = {2}}),
                          Vecs({{0, 1}, {2, 3}, {4, 5}, {6}}));
  testing::ExpectProduces(
      Pipeline::Range(7).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3}, .drop_remainder = true}),
      Vecs({{0, 1, 2}, {3, 4, 5}}));
  testing::ExpectProduces(Pipeline::Range(8).Batch({.batch_size = 4}).Rebatch({.batch_sizes = {2, 1, 1}}),
                          Vecs({{0, 1}, {2}, {3}, {4, 5}, {6}, {7}}));
}

// The sizes cycle across input batches, as unbatch().batch(n) would.
TEST(RebatchDatasetTest, MatchesUnbatchThenBatch) {
  auto reference = [](int64_t n, int64_t in, int64_t out, bool drop) {
    return testing::Collect(
        Pipeline::Range(n).Batch({.batch_size = in}).Unbatch().Batch({.batch_size = out, .drop_remainder = drop}));
  };
  for (int64_t in : {1, 3, 5}) {
    for (int64_t out : {1, 2, 4, 7}) {
      for (bool drop : {false, true}) {
        testing::ExpectProduces(
            Pipeline::Range(17).Batch({.batch_size = in}).Rebatch({.batch_sizes = {out}, .drop_remainder = drop}),
            reference(17, in, out, drop));
      }
    }
  }
  testing::ExpectProduces(Pipeline::Range(9).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3, 1}}),
                          Vecs({{0, 1, 2}, {3}, {4, 5, 6}, {7}, {8}}));
  testing::ExpectProduces(
      Pipeline::Range(9).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3, 1}, .drop_remainder = true}),
      Vecs({{0, 1, 2}, {3}, {4, 5, 6}, {7}}));
}

TEST(RebatchDatasetTest, SpecAndCardinality) {
  auto known_rows = Pipeline::Range(16).Batch({.batch_size = 4, .drop_remainder = true});
  DatasetPtr cycled = testing::Build(known_rows.Rebatch({.batch_sizes = {2, 1, 1}}));
  EXPECT_EQ(cycled->element_spec().ToString(), "(int64[?])");
  EXPECT_EQ(cycled->cardinality(), 12);
  DatasetPtr even = testing::Build(known_rows.Rebatch({.batch_sizes = {3}, .drop_remainder = true}));
  EXPECT_EQ(even->element_spec().ToString(), "(int64[3])");
  EXPECT_EQ(even->cardinality(), 5);
  EXPECT_EQ(testing::Build(known_rows.Rebatch({.batch_sizes = {3}}))->cardinality(), 6);
  EXPECT_EQ(testing::Build(known_rows.Rebatch({.batch_sizes = {100, 7}}))->cardinality(), 1);
  EXPECT_EQ(testing::Build(Pipeline::Range(7).Batch({.batch_size = 4}).Rebatch({.batch_sizes = {2}}))->cardinality(),
            kUnknownCardinality);
  EXPECT_EQ(testing::Build(known_rows.Repeat().Rebatch({.batch_sizes = {3}}))->cardinality(), kInfiniteCardinality);
}

TEST(RebatchDatasetTest, InvalidArguments) {
  auto batches = Pipeline::Range(4).Batch({.batch_size = 2});
  testing::ExpectError(batches.Rebatch({}), StatusCode::kInvalidArgument,
                       "rebatch: batch_sizes is empty (give at least one)");
  testing::ExpectError(batches.Rebatch({.batch_sizes = {2, 0}}), StatusCode::kInvalidArgument,
                       "rebatch: batch_sizes[1] must be greater than zero (got 0)");
  testing::ExpectError(Pipeline::Range(4).Rebatch({.batch_sizes = {2}}), StatusCode::kInvalidArgument,
                       "rebatch: unbatch: Input element must have a non-scalar value in each component");
}

// Rows of different shapes can't share a batch; the error names rebatch.
TEST(RebatchDatasetTest, RowsOfDifferentShapes) {
  auto growing = Pipeline::Range({.start = 1, .stop = 3}).Map(
      [](Element e) -> Result<Element> {
        const int64_t n = e[0].scalar<int64_t>();
        return Element{Tensor::FromVector(std::vector<int64_t>(n, n), Shape{1, n})};
      },
      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape({1, -1})}}});
  auto results = testing::CollectResults(testing::Build(growing.Rebatch({.batch_sizes = {2}})));
  ASSERT_EQ(results.size(), 1u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "rebatch: Cannot batch tensors with different shapes in component 0. First element had "
                        "shape [1] and element 1 had shape [2].");
}

// An input error mid-batch drops the rows gathered; the next batch has the
// size the failed one would have had.
TEST(RebatchDatasetTest, InputErrorMidBatch) {
  auto results = testing::CollectResults(
      testing::Build(testing::FailingRange(8, {5}).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3, 1}})));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_TRUE(results[0]->Equals(Element{testing::Vec({0, 1, 2})}));
  EXPECT_TRUE(results[1]->Equals(Element{testing::Vec({3})}));
  testing::ExpectFailedElement(results[2], 5);
  EXPECT_TRUE(results[3]->Equals(Element{testing::Vec({6, 7})}));
}

TEST(RebatchDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere(
      [] { return Pipeline::Range(16).Batch({.batch_size = 3}).Rebatch({.batch_sizes = {2, 1, 4}}); });
  testing::ExpectResumesEverywhere(
      [] { return testing::FailingRange(9, {4}).Batch({.batch_size = 2}).Rebatch({.batch_sizes = {3}}); });
}

TEST(RebatchDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).Batch({.batch_size = 8}).Prefetch(2).Rebatch({.batch_sizes = {5}})), 3);
}

}  // namespace
}  // namespace sluice

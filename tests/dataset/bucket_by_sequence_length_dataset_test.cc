#include "sluice/dataset/bucket_by_sequence_length_dataset.h"

#include <random>

#include "contract.h"
#include "sluice/dataset/buffered_bytes.h"
#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using testing::ExpectError;
using testing::ExpectProduces;

// The rank-1 int64 elements `rows`, in order (a C++ source of ragged data).
Pipeline Sequences(std::vector<std::vector<int64_t>> rows) {
  const int64_t n = static_cast<int64_t>(rows.size());
  return Pipeline::Range(n).Map(
      [rows = std::move(rows)](Element e) -> Result<Element> {
        return Element{Tensor::FromVector(rows[e[0].scalar<int64_t>()])};
      },
      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1}}}});
}

// The sequences of tf.data's documented examples.
Pipeline DocumentedElements() {
  return Sequences({{0}, {1, 2, 3, 4}, {5, 6, 7}, {7, 8, 9, 10, 11}, {13, 14, 15, 16, 19, 20}, {21, 22}});
}

Element Matrix(std::vector<int64_t> values, int64_t rows, int64_t cols) {
  return Element{Tensor::FromVector(values, Shape{rows, cols})};
}

// tf.data's documented examples for Dataset.bucket_by_sequence_length.
TEST(BucketBySequenceLengthDatasetTest, DocumentedExamples) {
  ExpectProduces(DocumentedElements().BucketBySequenceLength(
                     {.bucket_boundaries = {3, 5}, .bucket_batch_sizes = {2, 2, 2}}),
                 {Matrix({1, 2, 3, 4, 5, 6, 7, 0}, 2, 4), Matrix({7, 8, 9, 10, 11, 0, 13, 14, 15, 16, 19, 20}, 2, 6),
                  Matrix({0, 0, 21, 22}, 2, 2)});
  const BucketBySequenceLengthOptions to_boundary{.bucket_boundaries = {4, 7},
                                                  .bucket_batch_sizes = {2, 2, 2},
                                                  .padding_values = {Tensor::Scalar<int64_t>(-1)},
                                                  .pad_to_bucket_boundary = true};
  ExpectProduces(DocumentedElements().BucketBySequenceLength(to_boundary),
                 {Matrix({0, -1, -1, 5, 6, 7}, 2, 3), Matrix({1, 2, 3, 4, -1, -1, 7, 8, 9, 10, 11, -1}, 2, 6),
                  Matrix({21, 22, -1}, 1, 3), Matrix({13, 14, 15, 16, 19, 20}, 1, 6)});
  BucketBySequenceLengthOptions dropping = to_boundary;
  dropping.drop_remainder = true;
  ExpectProduces(DocumentedElements().BucketBySequenceLength(dropping),
                 {Matrix({0, -1, -1, 5, 6, 7}, 2, 3), Matrix({1, 2, 3, 4, -1, -1, 7, 8, 9, 10, 11, -1}, 2, 6)});
}

// At the end of the input the partly filled buckets are emitted in
// ascending bucket order, whatever order they were filled in.
TEST(BucketBySequenceLengthDatasetTest, LeftoverBucketsEmitInAscendingOrder) {
  ExpectProduces(Sequences({{1, 1, 1, 1, 1}, {2, 2, 2}, {3}}).BucketBySequenceLength(
                     {.bucket_boundaries = {2, 4}, .bucket_batch_sizes = {5, 5, 5}}),
                 {Matrix({3}, 1, 1), Matrix({2, 2, 2}, 1, 3), Matrix({1, 1, 1, 1, 1}, 1, 5)});
}

// An eager reference: tf.data's group_by_window keyed by bucket, then
// padded to the batch maximum with 0.
std::vector<Element> ReferenceBuckets(const std::vector<std::vector<int64_t>>& rows,
                                      const std::vector<int64_t>& boundaries, const std::vector<int64_t>& sizes) {
  std::vector<std::vector<std::vector<int64_t>>> buckets(sizes.size());
  std::vector<Element> out;
  auto emit = [&](size_t b) {
    size_t width = 0;
    for (const auto& r : buckets[b]) width = std::max(width, r.size());
    std::vector<int64_t> values;
    for (const auto& r : buckets[b]) {
      values.insert(values.end(), r.begin(), r.end());
      values.resize(values.size() + width - r.size(), 0);
    }
    out.push_back(Matrix(values, static_cast<int64_t>(buckets[b].size()), static_cast<int64_t>(width)));
    buckets[b].clear();
  };
  for (const auto& r : rows) {
    size_t b = 0;
    while (b < boundaries.size() && static_cast<int64_t>(r.size()) >= boundaries[b]) ++b;
    buckets[b].push_back(r);
    if (static_cast<int64_t>(buckets[b].size()) == sizes[b]) emit(b);
  }
  for (size_t b = 0; b < buckets.size(); ++b) {
    if (!buckets[b].empty()) emit(b);
  }
  return out;
}

TEST(BucketBySequenceLengthDatasetTest, MatchesAnEagerReference) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<std::vector<int64_t>> rows;
    for (int i = 0; i < 200; ++i) {
      std::vector<int64_t> r(rng() % 40);
      for (int64_t& v : r) v = static_cast<int64_t>(rng() % 1000) + 1;
      rows.push_back(std::move(r));
    }
    const std::vector<int64_t> boundaries = {5, 10, 20};
    const std::vector<int64_t> sizes = {7, 5, 3, 2};
    ExpectProduces(Sequences(rows).BucketBySequenceLength({.bucket_boundaries = boundaries, .bucket_batch_sizes = sizes}),
                   ReferenceBuckets(rows, boundaries, sizes));
  }
}

TEST(BucketBySequenceLengthDatasetTest, FixedPaddedShapesAndNamedLengthComponent) {
  auto pairs = Pipeline::Range({.start = 1, .stop = 5}).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        return Element{Tensor::Scalar<int64_t>(x * 10), Tensor::FromVector(std::vector<int64_t>(x, x))};
      },
      {.output_spec = ElementSpec{{"id", DType::kInt64, PartialShape{}}, {"tokens", DType::kInt64, PartialShape{-1}}}});
  ExpectProduces(pairs.BucketBySequenceLength({.length_component = "tokens",
                                               .bucket_boundaries = {3},
                                               .bucket_batch_sizes = {2, 2},
                                               .padded_shapes = {PartialShape{}, PartialShape{5}}}),
                 {Element{testing::Vec({10, 20}), Tensor::FromVector<int64_t>({1, 0, 0, 0, 0, 2, 2, 0, 0, 0}, Shape{2, 5})},
                  Element{testing::Vec({30, 40}),
                          Tensor::FromVector<int64_t>({3, 3, 3, 0, 0, 4, 4, 4, 4, 0}, Shape{2, 5})}});
  ExpectError(pairs.BucketBySequenceLength({.bucket_boundaries = {3}, .bucket_batch_sizes = {2, 2}}),
              StatusCode::kInvalidArgument, "no length_component named and the element has 2 components");
  ExpectError(pairs.BucketBySequenceLength(
                  {.length_component = "id", .bucket_boundaries = {3}, .bucket_batch_sizes = {2, 2}}),
              StatusCode::kInvalidArgument, "length_component id is a scalar");
}

TEST(BucketBySequenceLengthDatasetTest, LengthFnAndNoPadding) {
  // Length by the first value: rows of equal shape stacked unpadded.
  auto rows = Pipeline::FromSlices({{"", Tensor::FromVector<int64_t>({1, 1, 9, 9, 2, 2, 8, 8}, Shape{4, 2})}});
  const auto first_value = [](const Element& e) -> Result<int64_t> { return e[0].data<int64_t>()[0]; };
  DatasetPtr dataset = testing::Build(rows.BucketBySequenceLength(
      {.length_fn = first_value, .bucket_boundaries = {5}, .bucket_batch_sizes = {2, 2}, .no_padding = true}));
  ExpectProduces(dataset, {Element{Tensor::FromVector<int64_t>({1, 1, 2, 2}, Shape{2, 2})},
                           Element{Tensor::FromVector<int64_t>({9, 9, 8, 8}, Shape{2, 2})}});
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[?, 2])");
  Result<spec::Pipeline> spec = DatasetToSpec(*dataset);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(spec.status().message().find("length_fn is a C++ callable"), std::string::npos) << spec.status();

  auto results = testing::CollectResults(testing::Build(
      Sequences({{1}, {1, 2}}).BucketBySequenceLength(
          {.length_fn = [](const Element&) -> Result<int64_t> { return 0; },
           .bucket_batch_sizes = {2},
           .no_padding = true})));
  ASSERT_EQ(results.size(), 1u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "bucket_by_sequence_length: Cannot batch tensors with different shapes in component 0. "
                        "First element had shape [1] and element 1 had shape [2].");
}

// Per-element errors leave the iterator usable: a length outside the
// buckets, an element too long for pad_to_bucket_boundary, a failing
// length_fn, an input error.
TEST(BucketBySequenceLengthDatasetTest, ErrorsArePerElement) {
  auto results = testing::CollectResults(testing::Build(
      Sequences({{1}, {1, 2, 3, 4, 5}, {2}}).BucketBySequenceLength(
          {.bucket_boundaries = {4}, .bucket_batch_sizes = {2, 2}, .pad_to_bucket_boundary = true})));
  ASSERT_EQ(results.size(), 2u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "bucket_by_sequence_length: When pad_to_bucket_boundary=True, elements must have length < "
                        "max(bucket_boundaries). (got an element of length 5, max(bucket_boundaries) = 4)");
  EXPECT_TRUE(results[1]->Equals(Matrix({1, 0, 0, 2, 0, 0}, 2, 3))) << *results[1];

  auto length = [](const Element& e) -> Result<int64_t> {
    const int64_t v = e[0].scalar<int64_t>();
    if (v == 2) return InvalidArgumentError("no length for 2");
    return v == 3 ? int64_t{1} << 40 : v;
  };
  results = testing::CollectResults(testing::Build(testing::FailingRange(6, {4}).BucketBySequenceLength(
      {.length_fn = length, .bucket_batch_sizes = {3}, .no_padding = true})));
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "bucket_by_sequence_length: length_fn: no length for 2");
  testing::ExpectStatus(results[1].status(), StatusCode::kInvalidArgument,
                        "bucket_by_sequence_length: element length 1099511627776 is outside the buckets "
                        "[-2147483648, 2147483647)");
  testing::ExpectFailedElement(results[2], 4);
  EXPECT_TRUE(results[3]->Equals(Element{testing::Vec({0, 1, 5})})) << *results[3];
}

TEST(BucketBySequenceLengthDatasetTest, TooLongForAFixedPaddedShapeIsDataLoss) {
  auto results = testing::CollectResults(testing::Build(Sequences({{1, 2, 3}, {4}}).BucketBySequenceLength(
      {.bucket_batch_sizes = {2}, .padded_shapes = {PartialShape{2}}})));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kDataLoss) << results[0].status();
  EXPECT_NE(results[0].status().message().find("bucket_by_sequence_length: Attempted to pad to a smaller size"),
            std::string::npos);
}

TEST(BucketBySequenceLengthDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(
      DocumentedElements().BucketBySequenceLength({.bucket_boundaries = {3}, .bucket_batch_sizes = {2, 2}}));
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[?, ?])");
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(dataset->op_name(), "bucket_by_sequence_length");
  EXPECT_EQ(dataset->DebugParams(),
            "length=len(0), bucket_boundaries=[3], bucket_batch_sizes=[2, 2], padded_shapes=([?]), "
            "pad_to_bucket_boundary=false, no_padding=false, drop_remainder=false");
  EXPECT_EQ(testing::Build(DocumentedElements().BucketBySequenceLength(
                               {.bucket_batch_sizes = {2}, .padded_shapes = {PartialShape{9}}}))
                ->element_spec()
                .ToString(),
            "(int64[?, 9])");
}

TEST(BucketBySequenceLengthDatasetTest, InvalidArguments) {
  ExpectError(DocumentedElements().BucketBySequenceLength({.bucket_boundaries = {3, 5}, .bucket_batch_sizes = {2, 2}}),
              StatusCode::kInvalidArgument,
              "bucket_by_sequence_length: `len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
              "`len(bucket_batch_sizes)=2` and `len(bucket_boundaries)=2`.");
  ExpectError(DocumentedElements().BucketBySequenceLength({.bucket_boundaries = {5, 5}, .bucket_batch_sizes = {2, 2, 2}}),
              StatusCode::kInvalidArgument, "bucket_boundaries must be strictly increasing, but got [5, 5]");
  ExpectError(DocumentedElements().BucketBySequenceLength({.bucket_boundaries = {5, 3}, .bucket_batch_sizes = {2, 2, 2}}),
              StatusCode::kInvalidArgument, "bucket_boundaries must be strictly increasing, but got [5, 3]");
  ExpectError(DocumentedElements().BucketBySequenceLength({.bucket_boundaries = {3}, .bucket_batch_sizes = {2, 0}}),
              StatusCode::kInvalidArgument,
              "bucket_batch_sizes[1]: Window size must be greater than zero, but got 0.");
  ExpectError(DocumentedElements().BucketBySequenceLength(
                  {.bucket_boundaries = {int64_t{1} << 31}, .bucket_batch_sizes = {2, 2}}),
              StatusCode::kInvalidArgument, "bucket_boundaries[0] = 2147483648 is outside int32");
  ExpectError(DocumentedElements().BucketBySequenceLength(
                  {.bucket_boundaries = {0, 3}, .bucket_batch_sizes = {2, 2, 2}, .pad_to_bucket_boundary = true}),
              StatusCode::kInvalidArgument, "with pad_to_bucket_boundary, bucket_boundaries must be >= 1");
  ExpectError(DocumentedElements().BucketBySequenceLength(
                  {.bucket_batch_sizes = {2}, .pad_to_bucket_boundary = true, .no_padding = true}),
              StatusCode::kInvalidArgument, "no_padding batches without padding");
  ExpectError(DocumentedElements().BucketBySequenceLength(
                  {.length_component = "0",
                   .length_fn = [](const Element&) -> Result<int64_t> { return 1; },
                   .bucket_batch_sizes = {2}}),
              StatusCode::kInvalidArgument, "set one of length_component, length_expression and length_fn");
  ExpectError(DocumentedElements().BucketBySequenceLength({.length_component = "x", .bucket_batch_sizes = {2}}),
              StatusCode::kInvalidArgument, "length_component: no component named 'x'");
  ExpectError(DocumentedElements().BucketBySequenceLength(
                  {.bucket_batch_sizes = {2}, .padding_values = {Tensor::Scalar(1.0f)}}),
              StatusCode::kInvalidArgument, "bucket_by_sequence_length: Mismatched type between padding value 0");
  // Padding to a bucket boundary fixes the unknown dims: rows that overflow are refused.
  auto cubes = Pipeline::Range(2).Map([](Element e) -> Result<Element> { return e; },
                                      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape{-1, -1, -1}}}});
  ExpectError(cubes.BucketBySequenceLength({.bucket_boundaries = {int64_t{1} << 30},
                                            .bucket_batch_sizes = {2, 2},
                                            .pad_to_bucket_boundary = true}),
              StatusCode::kInvalidArgument,
              "bucket_by_sequence_length: padded shape [1073741823, 1073741823, 1073741823] for component 0");
}

// Saved mid-bucket (elements held in several buckets) and at the end of
// the input (leftovers not yet emitted), restored exactly.
TEST(BucketBySequenceLengthDatasetTest, ResumesMidBucket) {
  testing::ExpectResumesEverywhere([] {
    return Sequences({{1}, {2, 2, 2}, {3}, {4, 4, 4, 4}, {5, 5}, {6}, {7, 7, 7}}).BucketBySequenceLength(
        {.bucket_boundaries = {2, 3}, .bucket_batch_sizes = {2, 3, 2}});
  });
  testing::ExpectResumesEverywhere([] {
    return testing::FailingRange(9, {3}).BucketBySequenceLength(
        {.length_fn = [](const Element& e) -> Result<int64_t> { return e[0].scalar<int64_t>() % 3; },
         .bucket_boundaries = {1, 2},
         .bucket_batch_sizes = {2, 2, 2},
         .no_padding = true,
         .drop_remainder = true});
  });
}

TEST(BucketBySequenceLengthDatasetTest, HeldElementsAreChargedToTheRamBudget) {
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 4096});
  DatasetPtr dataset = testing::Build(Sequences({std::vector<int64_t>(400, 1), std::vector<int64_t>(400, 2)})
                                          .BucketBySequenceLength({.bucket_batch_sizes = {2}}));
  auto it = dataset->MakeIterator(ctx);
  Result<std::optional<Element>> next = it->GetNext();
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().code(), StatusCode::kResourceExhausted) << next.status();
  const int64_t held = BufferedBytes(Element{Tensor::FromVector(std::vector<int64_t>(400, 1))});
  EXPECT_NE(next.status().message().find(StrCat("holding an element of ", held, " bytes beside the ", held,
                                                " bytes in the buckets would pass the RAM budget of 4096 bytes")),
            std::string::npos)
      << next.status();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), held);
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(BucketBySequenceLengthDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(DocumentedElements().Repeat(10).BucketBySequenceLength(
          {.bucket_boundaries = {3, 5}, .bucket_batch_sizes = {4, 4, 4}})),
      2);
}

}  // namespace
}  // namespace sluice

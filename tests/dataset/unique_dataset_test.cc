#include "sluice/dataset/unique_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

Element Str(const std::string& s) { return Element{Tensor::Scalar(s)}; }

// tf.data's documented example: from_tensor_slices([1, 37, 2, 37, 2, 1]).unique()
// gives 1, 2, 37 (sorted in the doc); each element comes at its first occurrence.
TEST(UniqueDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::FromSlices({{"", testing::Vec({1, 37, 2, 37, 2, 1})}}).Unique();
  testing::ExpectProduces(pipeline, testing::Ints({1, 37, 2}));
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), kUnknownCardinality);
}

TEST(UniqueDatasetTest, StringsInt32AndVectors) {
  const Tensor words = Tensor::FromVector<std::string>({"b", "a", "b", "", "a", ""});
  testing::ExpectProduces(Pipeline::FromSlices({{"", words}}).Unique(), {Str("b"), Str("a"), Str("")});
  const Tensor small = Tensor::FromVector<int32_t>({3, 3, -1});
  testing::ExpectProduces(Pipeline::FromSlices({{"", small}}).Unique(),
                          {Element{Tensor::Scalar<int32_t>(3)}, Element{Tensor::Scalar<int32_t>(-1)}});
  // Rows are the same when shapes and values are: [1, 2] twice, then [2, 1].
  const Tensor rows = Tensor::FromVector<int64_t>({1, 2, 1, 2, 2, 1}, Shape{3, 2});
  testing::ExpectProduces(Pipeline::FromSlices({{"", rows}}).Unique(),
                          {Element{testing::Vec({1, 2})}, Element{testing::Vec({2, 1})}});
  // Strings whose concatenations agree are still different elements.
  const Tensor pairs = Tensor::FromVector<std::string>({"ab", "c", "a", "bc", "ab", "c"}, Shape{3, 2});
  EXPECT_EQ(testing::Collect(Pipeline::FromSlices({{"", pairs}}).Unique()).size(), 2u);
}

// Everything after the first occurrences is dropped, over repeats too.
TEST(UniqueDatasetTest, MatchesAnEagerReference) {
  auto pipeline = Pipeline::Range(7).Repeat(3).Unique();
  testing::ExpectProduces(pipeline, testing::IntRange(0, 7));
  testing::ExpectProduces(Pipeline::Counter({.step = 0}).Take(50).Unique(), testing::Ints({0}));
}

TEST(UniqueDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Enumerate().Unique(), StatusCode::kInvalidArgument,
                       "unique: UniqueDataset only supports inputs with a single component; got (index: int64[], "
                       "int64[])");
  testing::ExpectError(Pipeline::Range({.stop = 3, .dtype = DType::kFloat32}).Unique(), StatusCode::kInvalidArgument,
                       "unique: UniqueDataset only supports inputs with a single `tf.int32`, `tf.int64`, or "
                       "`tf.string` component; got (float32[])");
  testing::ExpectError(MakeUniqueDataset(nullptr), StatusCode::kInvalidArgument, "unique: input dataset is null");
}

// An input error is that element's error; the failed element is not
// remembered, and the iterator goes on.
TEST(UniqueDatasetTest, InputErrorsPassThrough) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(3, {1}).Repeat(2).Unique()));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ((*results[0])[0].scalar<int64_t>(), 0);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_EQ((*results[2])[0].scalar<int64_t>(), 2);
  testing::ExpectFailedElement(results[3], 1);
}

// What unique remembers counts against the RAM budget, and is given back
// when the iterator goes.
TEST(UniqueDatasetTest, RemembersWithinTheRamBudget) {
  const DatasetPtr dataset = testing::Build(Pipeline::Range(10).Unique());
  IteratorContext ctx;
  // A key is 8 bytes of rank and 8 of value: three fit in 50 bytes.
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 50});
  {
    auto it = dataset->MakeIterator(ctx);
    auto results = testing::CollectResults(*it);
    ASSERT_EQ(results.size(), 10u);
    for (int i = 0; i < 3; ++i) EXPECT_EQ((*results[i])[0].scalar<int64_t>(), i);
    testing::ExpectStatus(results[3].status(), StatusCode::kResourceExhausted,
                          "unique: remembering a new element of 16 bytes beside the 3 seen (48 bytes) would pass "
                          "the RAM budget of 50 bytes");
    EXPECT_EQ(ctx.runtime->ram_budget().used(), 48);
  }
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(UniqueDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] { return Pipeline::FromSlices({{"", testing::Vec({4, 1, 4, 2, 1, 3})}}).Unique(); });
  testing::ExpectResumesEverywhere([] {
    return Pipeline::FromSlices({{"", Tensor::FromVector<std::string>({"x", "y", "x", "z"})}}).Unique();
  });
}

TEST(UniqueDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Unique()), 3);
}

}  // namespace
}  // namespace sluice

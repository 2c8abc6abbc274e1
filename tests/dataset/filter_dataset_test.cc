#include "sluice/dataset/filter_dataset.h"

#include "contract.h"
#include "sluice/dataset/compare_predicate.h"

namespace sluice {
namespace {

Result<bool> IsEven(const Element& e) { return e[0].scalar<int64_t>() % 2 == 0; }

TEST(FilterDatasetTest, KeepsMatchingElementsAndCardinalityIsUnknown) {
  auto pipeline = Pipeline::Range(10).Filter(IsEven);
  testing::ExpectProduces(pipeline, testing::Ints({0, 2, 4, 6, 8}));
  EXPECT_EQ((*pipeline.Build())->cardinality(), kUnknownCardinality);
  EXPECT_EQ((*Pipeline::Range(3).Repeat().Filter(IsEven).Build())->cardinality(), kUnknownCardinality);
}

TEST(FilterDatasetTest, PredicateErrorIsThatElementsError) {
  auto pipeline = Pipeline::Range(4).Filter([](const Element& e) -> Result<bool> {
    if (e[0].scalar<int64_t>() == 2) return InvalidArgumentError("element 2 failed");
    return true;
  });
  auto results = testing::CollectResults(testing::Build(pipeline));
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectFailedElement(results[2], 2);
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 3);
}

TEST(FilterDatasetTest, InputErrorPassesThrough) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(4, {1}).Filter(IsEven)));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[0].ok() ? results[1] : results[0], 1);
}

TEST(FilterDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeFilterDataset(*MakeRangeDataset({.stop = 1}), nullptr), StatusCode::kInvalidArgument,
                       "predicate is null");
}

// One built-in predicate object serves two filters where its component sits
// at different positions: each filter binds it to its own input.
TEST(FilterDatasetTest, SameBuiltinPredicateAtDifferentPositions) {
  const PredicatePtr odd_label = *MakeComparePredicate("label", Comparison::kEqual, 1);
  const Tensor labels = testing::Vec({0, 1, 1, 0});
  const Tensor ids = testing::Vec({10, 11, 12, 13});
  testing::ExpectProduces(
      Pipeline::FromSlices({{"label", labels}, {"id", ids}}).Filter(odd_label),
      {Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(11)},
       Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(12)}});
  testing::ExpectProduces(
      Pipeline::FromSlices({{"id", ids}, {"label", labels}}).Filter(odd_label),
      {Element{Tensor::Scalar<int64_t>(11), Tensor::Scalar<int64_t>(1)},
       Element{Tensor::Scalar<int64_t>(12), Tensor::Scalar<int64_t>(1)}});
}

// A predicate that names a missing component fails when the filter is built.
TEST(FilterDatasetTest, MissingComponentFailsAtBuildTime) {
  DatasetPtr input = *MakeFromSlicesDataset({{"id", testing::Vec({1, 2})}});
  Result<DatasetPtr> filter =
      MakeFilterDataset(input, *MakeComparePredicate("label", Comparison::kEqual, 1));
  ASSERT_FALSE(filter.ok());
  EXPECT_EQ(filter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(filter.status().message(),
            "filter: compare(label == 1): no component named 'label' in element spec (id: "
            "int64[])");
}

TEST(FilterDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Filter(IsEven)), 3);
}

}  // namespace
}  // namespace sluice

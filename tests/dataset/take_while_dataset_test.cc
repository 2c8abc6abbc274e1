#include "sluice/dataset/take_while_dataset.h"

#include "contract.h"
#include "sluice/dataset/compare_predicate.h"

namespace sluice {
namespace {

Result<bool> BelowFive(const Element& e) { return e[0].scalar<int64_t>() < 5; }

// tf.data's documented example: range(10).take_while(lambda x: x < 5).
TEST(TakeWhileDatasetTest, DocumentedExample) {
  testing::ExpectProduces(Pipeline::Range(10).TakeWhile(BelowFive), testing::Ints({0, 1, 2, 3, 4}));
  testing::ExpectProduces(Pipeline::Range(10).TakeWhile(MakeComparePredicate("", Comparison::kLess, 5)),
                          testing::Ints({0, 1, 2, 3, 4}));
}

TEST(TakeWhileDatasetTest, EndsAnInfiniteInputAndCardinalityIsUnknown) {
  auto pipeline = Pipeline::Counter({.start = 3}).TakeWhile(BelowFive);
  testing::ExpectProduces(pipeline, testing::Ints({3, 4}));
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), kUnknownCardinality);
  testing::ExpectProduces(Pipeline::Range(3).TakeWhile(BelowFive), testing::Ints({0, 1, 2}));
  testing::ExpectProduces(Pipeline::Range({.start = 7, .stop = 9}).TakeWhile(BelowFive), {});
}

// Nothing after the first false is read, even an element that would pass.
TEST(TakeWhileDatasetTest, StopsAtTheFirstFalse) {
  const Tensor x = testing::Vec({1, 2, 9, 3, 4});
  testing::ExpectProduces(Pipeline::FromSlices({{"", x}}).TakeWhile(BelowFive), testing::Ints({1, 2}));
}

TEST(TakeWhileDatasetTest, ErrorsAreThatElementsErrors) {
  auto predicate_fails = Pipeline::Range(10).TakeWhile([](const Element& e) -> Result<bool> {
    if (e[0].scalar<int64_t>() == 1) return InvalidArgumentError("element 1 failed");
    return e[0].scalar<int64_t>() < 3;
  });
  auto results = testing::CollectResults(testing::Build(predicate_fails));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_NE(results[1].status().message().find("take_while: "), std::string::npos) << results[1].status();
  EXPECT_EQ((*results[2])[0].scalar<int64_t>(), 2);

  auto input_fails = testing::CollectResults(testing::Build(testing::FailingRange(10, {2}).TakeWhile(BelowFive)));
  ASSERT_EQ(input_fails.size(), 5u);
  testing::ExpectFailedElement(input_fails[2], 2);
  EXPECT_EQ((*input_fails[4])[0].scalar<int64_t>(), 4);
}

TEST(TakeWhileDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeTakeWhileDataset(*MakeRangeDataset({.stop = 1}), nullptr), StatusCode::kInvalidArgument,
                       "take_while: predicate is null");
  testing::ExpectError(Pipeline::Range(3).TakeWhile(MakeComparePredicate("label", Comparison::kLess, 1)),
                       StatusCode::kInvalidArgument, "take_while: ");
}

TEST(TakeWhileDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere(
      [] { return Pipeline::Range(10).TakeWhile(MakeComparePredicate("", Comparison::kLess, 6)); });
  testing::ExpectResumesEverywhere([] { return testing::FailingRange(8, {1, 4}).TakeWhile(BelowFive); });
}

TEST(TakeWhileDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Counter().Prefetch(2).TakeWhile(BelowFive)), 3);
}

}  // namespace
}  // namespace sluice

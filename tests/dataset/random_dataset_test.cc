#include "sluice/dataset/random_dataset.h"

#include <set>

#include "contract.h"
#include "sluice/dataset/seed_mix.h"

namespace sluice {
namespace {

std::vector<int64_t> Draw(const DatasetPtr& dataset, size_t n) { return testing::Values(testing::Collect(dataset, n)); }

// tf.data's documented examples: the same seed gives the same sequence,
// every epoch, unless rerandomize_each_iteration.
TEST(RandomDatasetTest, DocumentedExamples) {
  EXPECT_EQ(Draw(testing::Build(Pipeline::Random({.seed = 4}).Take(10)), 10),
            Draw(testing::Build(Pipeline::Random({.seed = 4}).Take(10)), 10));
  DatasetPtr ds3 = testing::Build(Pipeline::Random({.seed = 4}).Take(10));
  EXPECT_EQ(Draw(ds3, 10), Draw(ds3, 10));
  DatasetPtr ds4 = testing::Build(Pipeline::Random({.seed = 4, .rerandomize_each_iteration = true}).Take(10));
  const std::vector<int64_t> first_epoch = Draw(ds4, 10);
  EXPECT_NE(first_epoch, Draw(ds4, 10));
  // Rerandomized epochs are still a function of the seed.
  DatasetPtr again = testing::Build(Pipeline::Random({.seed = 4, .rerandomize_each_iteration = true}).Take(10));
  EXPECT_EQ(Draw(again, 10), first_epoch);
}

// Value i is splitmix64(seed, i): uniform over all of int64.
TEST(RandomDatasetTest, ValuesAndSpec) {
  std::vector<Element> expected;
  for (uint64_t i = 0; i < 5; ++i) expected.push_back(testing::Int(static_cast<int64_t>(MixSeed(42, i))));
  auto pipeline = Pipeline::Random({.seed = 42}).Take(5);
  testing::ExpectProduces(pipeline, expected);
  DatasetPtr random = testing::Build(Pipeline::Random({.seed = 42}));
  EXPECT_EQ(random->element_spec().ToString(), "(int64[])");
  EXPECT_EQ(random->cardinality(), kInfiniteCardinality);
  const std::vector<int64_t> values = Draw(random, 1000);
  EXPECT_EQ(std::set<int64_t>(values.begin(), values.end()).size(), values.size());
  const auto negative = std::count_if(values.begin(), values.end(), [](int64_t v) { return v < 0; });
  EXPECT_GT(negative, 400);
  EXPECT_LT(negative, 600);
}

TEST(RandomDatasetTest, UnseededDatasetsDiffer) {
  EXPECT_NE(Draw(testing::Build(Pipeline::Random()), 4), Draw(testing::Build(Pipeline::Random()), 4));
}

// A restore adopts the saved sequence: an unseeded dataset built anew, and
// a rerandomizing one, continue the saved iterator's values.
TEST(RandomDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] { return Pipeline::Random({.seed = 7}).Take(6); });
  testing::ExpectResumesEverywhere(
      [] { return Pipeline::Random({.seed = 7, .rerandomize_each_iteration = true}).Take(6); });
  testing::ExpectResumesEverywhere([] { return Pipeline::Random().Take(4); });
}

TEST(RandomDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Random().Prefetch(2)), 3);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/element_seeds.h"

#include <gtest/gtest.h>

#include "contract.h"
#include "ops/image_test_util.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {
namespace {

using testing::Ok;

constexpr int64_t kImages = 40;

// kImages small distinct images, one component "image": no enumerate.
Pipeline Images() { return Pipeline::FromSlices({{"image", testing::TestPictures(kImages, 4, 5, 3)}}); }

Result<ElementFunctionPtr> Flip(std::optional<uint64_t> seed) {
  return MakeRandomFlipFunction("image", {.random = {.seed = seed}});
}

Result<ElementFunctionPtr> Jitter(std::optional<uint64_t> seed) {
  return MakeColorJitterFunction("image",
                                 {.brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .random = {.seed = seed}});
}

// The first component of every element (rows of batches unstacked).
std::vector<Tensor> Firsts(const Pipeline& pipeline) {
  std::vector<Tensor> out;
  for (const Element& e : testing::Collect(pipeline)) {
    if (e[0].rank() == 4) {
      for (int64_t r = 0; r < e[0].dim(0); ++r) out.push_back(e[0].Row(r));
    } else {
      out.push_back(e[0]);
    }
  }
  return out;
}

// How many of the tensors at the same positions differ.
int64_t Differences(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  EXPECT_EQ(a.size(), b.size());
  int64_t differ = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) differ += !a[i].Equals(b[i]);
  return differ;
}

void ExpectSame(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_TRUE(actual[i].Equals(expected[i])) << "element " << i;
}

TEST(ElementSeeds, DrawsAreMapsElementSeeds) {
  const std::vector<Tensor> originals = Firsts(Images());
  const std::vector<Tensor> flipped = Firsts(Images().Map(Flip(7)));
  ASSERT_EQ(flipped.size(), originals.size());
  // The first iterator (epoch 0) of a function seeded 7: element i draws
  // from MixSeed(MixSeed(7, 0), i).
  int64_t flips = 0;
  for (int64_t i = 0; i < kImages; ++i) {
    const bool flip = SeededStream(ElementSeeds::At(MixSeed(7, 0), i))(0) < 0.5;
    const Tensor want = flip ? Ok(FlipImage(originals[i], FlipDirection::kLeftRight)) : originals[i];
    EXPECT_TRUE(flipped[i].Equals(want)) << "element " << i;
    flips += flip;
  }
  EXPECT_GT(flips, 0);
  EXPECT_LT(flips, kImages);
}

TEST(ElementSeeds, DrawsDoNotDependOnParallelismOrRuns) {
  for (const auto& make : {Flip, Jitter}) {
    for (std::optional<uint64_t> seed : {std::optional<uint64_t>(7), std::optional<uint64_t>()}) {
      // With no seed of its own, the function's seed is the pipeline seed's.
      const Pipeline images = seed ? Images() : Images().Seed(3);
      const std::vector<Tensor> sequential = Firsts(images.Map(make(seed)));
      EXPECT_GT(Differences(sequential, Firsts(images)), 0);
      for (int64_t parallelism : {int64_t{1}, int64_t{4}, kAutotune}) {
        SCOPED_TRACE(parallelism);
        ExpectSame(Firsts(images.Map(make(seed), {.num_parallel_calls = parallelism})), sequential);
      }
      // Batch pulls runs: map then maps a run's rows into one output run.
      ExpectSame(Firsts(images.Map(make(seed)).Batch({.batch_size = 8})), sequential);
      // Runs from unbatch into a parallel map (two ops deeper: other seeds
      // from a pipeline seed).
      const Pipeline rows = images.Batch({.batch_size = 8}).Unbatch();
      ExpectSame(Firsts(rows.Map(make(seed), {.num_parallel_calls = 3})), Firsts(rows.Map(make(seed))));
    }
  }
}

TEST(ElementSeeds, RestoredIteratorsDrawTheSame) {
  for (int64_t parallelism : {int64_t{0}, int64_t{3}}) {
    SCOPED_TRACE(parallelism);
    // An explicit seed, a pipeline seed, and a random one that the rebuilt
    // pipeline adopts from the state.
    testing::ExpectResumesEverywhere([&] { return Images().Map(Flip(5), {.num_parallel_calls = parallelism}); });
    testing::ExpectResumesEverywhere(
        [&] { return Images().Seed(9).Map(Jitter(std::nullopt), {.num_parallel_calls = parallelism}); });
    testing::ExpectResumesEverywhere([&] {
      return Images().Take(12).Map(Flip(std::nullopt), {.num_parallel_calls = parallelism}).Repeat(3);
    });
    testing::ExpectResumesEverywhere([&] {
      return Images().Take(12).Repeat(2).Map(Flip(std::nullopt), {.num_parallel_calls = parallelism}).Batch(
          {.batch_size = 5});
    });
  }
}

TEST(ElementSeeds, EachEpochDrawsAnew) {
  const std::vector<Tensor> originals = Firsts(Images());
  auto epochs = [&](const Pipeline& pipeline) {
    std::vector<Tensor> all = Firsts(pipeline);
    EXPECT_EQ(all.size(), 2u * kImages);
    return std::pair<std::vector<Tensor>, std::vector<Tensor>>{
        {all.begin(), all.begin() + kImages}, {all.begin() + kImages, all.end()}};
  };
  // repeat after map: each epoch is a new map iterator (the next k).
  const auto [after_first, after_second] = epochs(Images().Map(Flip(7)).Repeat(2));
  ExpectSame(after_first, Firsts(Images().Map(Flip(7))));
  EXPECT_GT(Differences(after_first, after_second), 0);
  // repeat before map: one map iterator, the positions go on counting.
  const auto [before_first, before_second] = epochs(Images().Repeat(2).Map(Flip(7)));
  ExpectSame(before_first, after_first);
  EXPECT_GT(Differences(before_first, before_second), 0);
  // A training loop's epochs: each iterator of the same dataset draws anew,
  // and a rebuilt pipeline draws the same run of epochs again.
  const DatasetPtr dataset = testing::Build(Images().Map(Flip(7)));
  const std::vector<Element> first = testing::Collect(dataset), second = testing::Collect(dataset);
  const DatasetPtr rebuilt = testing::Build(Images().Map(Flip(7)));
  testing::ExpectElementsEqual(testing::Collect(rebuilt), first);
  testing::ExpectElementsEqual(testing::Collect(rebuilt), second);
  int64_t differ = 0;
  for (int64_t i = 0; i < kImages; ++i) differ += !first[i][0].Equals(second[i][0]);
  EXPECT_GT(differ, 0);
}

TEST(ElementSeeds, SeedsChooseTheDraws) {
  const std::vector<Tensor> pipeline_1 = Firsts(Images().Seed(1).Map(Flip(std::nullopt)));
  EXPECT_GT(Differences(pipeline_1, Firsts(Images().Seed(2).Map(Flip(std::nullopt)))), 0);
  ExpectSame(Firsts(Images().Seed(1).Map(Flip(std::nullopt))), pipeline_1);
  // The pipeline seed is MixSeed'ed with the map's depth: two maps draw
  // differently.
  const std::vector<Tensor> deeper = Firsts(Images().Seed(1).Take(kImages).Map(Flip(std::nullopt)));
  EXPECT_GT(Differences(pipeline_1, deeper), 0);
  // A function's own seed wins over the pipeline's and reproduces.
  const std::vector<Tensor> own = Firsts(Images().Seed(1).Map(Flip(7)));
  ExpectSame(Firsts(Images().Seed(2).Map(Flip(7))), own);
  ExpectSame(Firsts(Images().Map(Flip(7))), own);
  // Without either, each built pipeline takes a random seed.
  EXPECT_GT(Differences(Firsts(Images().Map(Flip(std::nullopt))), Firsts(Images().Map(Flip(std::nullopt)))), 0);
}

TEST(ElementSeeds, AnIndexComponentDrawsTheSameEveryEpoch) {
  const Result<ElementFunctionPtr> flip = MakeRandomFlipFunction("image", {.random = {.index_component = "index"}});
  std::vector<Tensor> all;
  for (const Element& e : testing::Collect(Images().Enumerate().Map(flip).Repeat(2))) all.push_back(e[1]);
  ASSERT_EQ(all.size(), 2u * kImages);
  ExpectSame({all.begin(), all.begin() + kImages}, {all.begin() + kImages, all.end()});
  const std::vector<Tensor> originals = Firsts(Images());
  for (int64_t i = 0; i < kImages; ++i) {
    const bool flip_it = ElementStream(0, i)(0) < 0.5;
    EXPECT_TRUE(all[i].Equals(flip_it ? Ok(FlipImage(originals[i], FlipDirection::kLeftRight)) : originals[i]));
  }
}

TEST(ElementSeeds, OutsideMapARandomFunctionNeedsAnIndex) {
  ElementFunctionPtr flip = Ok(Flip(3));
  EXPECT_EQ(flip->name(), "random_flip(image, left_right, p=0.5, seed=3)");
  BoundElementFunction bound = Ok(flip->Bind({{"image", DType::kUInt8, Shape{2, 2, 3}}}));
  EXPECT_TRUE(bound.apply_seeded != nullptr);
  EXPECT_EQ(bound.seed, std::optional<uint64_t>(3));
  testing::ExpectStatus(bound.apply(Element{Tensor::Allocate(DType::kUInt8, Shape{2, 2, 3})}).status(),
                        StatusCode::kFailedPrecondition,
                        "random_flip(image, left_right, p=0.5, seed=3): draws from the seed map gives each element; "
                        "outside map, set index_component");
  EXPECT_FALSE(bound.row_wise);
}

TEST(IterationSeeds, CountsIteratorsAndResumes) {
  IterationSeeds seeds(11);
  EXPECT_EQ(seeds.Next().index, 0u);
  EXPECT_EQ(seeds.Next().index, 1u);
  seeds.ResumeAfter({.seed = 4, .index = 6});
  const IterationSeeds::Epoch next = seeds.Next();
  EXPECT_EQ(next.seed, 4u);
  EXPECT_EQ(next.index, 7u);
  EXPECT_EQ(seeds.seed(), 4u);
  EXPECT_EQ(FunctionSeed(5, 6, 2), 5u);
  EXPECT_EQ(FunctionSeed(std::nullopt, 6, 2), MixSeed(6, 2));
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/sample_from_datasets_dataset.h"

#include <algorithm>

#include "contract.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

Pipeline Ones() { return Pipeline::Counter({.start = 1, .step = 0}); }
Pipeline Twos() { return Pipeline::Counter({.start = 2, .step = 0}); }

// tf.data's documented example: range(0, 3) and range(100, 103) with
// weights [0.5, 0.5] give all six values, each dataset's in its order.
TEST(SampleFromDatasetsDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::SampleFromDatasets({Pipeline::Range(3), Pipeline::Range({.start = 100, .stop = 103})},
                                               {.weights = {0.5, 0.5}, .seed = 1});
  std::vector<int64_t> values = testing::Values(testing::Collect(pipeline));
  ASSERT_EQ(values.size(), 6u);
  std::vector<int64_t> low, high;
  for (int64_t v : values) (v < 100 ? low : high).push_back(v);
  EXPECT_EQ(low, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(high, (std::vector<int64_t>{100, 101, 102}));
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), kUnknownCardinality);
}

// The same seed gives the same order, on every iterator; another seed
// another order.
TEST(SampleFromDatasetsDatasetTest, DeterministicForASeed) {
  auto sampled = [](uint64_t seed) {
    return testing::Values(testing::Collect(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.seed = seed}).Take(64)));
  };
  EXPECT_EQ(sampled(5), sampled(5));
  EXPECT_NE(sampled(5), sampled(6));
  DatasetPtr dataset = testing::Build(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.seed = 5}).Take(64));
  EXPECT_EQ(testing::Values(testing::Collect(dataset)), testing::Values(testing::Collect(dataset)));
  EXPECT_EQ(dataset->cardinality(), 64);
}

// Draws follow the weights; a dataset of weight 0 is never drawn.
TEST(SampleFromDatasetsDatasetTest, DrawsFollowTheWeights) {
  auto three = Pipeline::Counter({.start = 3, .step = 0});
  std::vector<int64_t> values = testing::Values(testing::Collect(
      Pipeline::SampleFromDatasets({Ones(), Twos(), three}, {.weights = {3, 1, 0}, .seed = 11}).Take(8000)));
  const auto ones = std::count(values.begin(), values.end(), 1);
  const auto twos = std::count(values.begin(), values.end(), 2);
  EXPECT_EQ(ones + twos, 8000);
  EXPECT_NEAR(static_cast<double>(ones) / 8000, 0.75, 0.03);
  // Unweighted: all alike.
  values = testing::Values(testing::Collect(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.seed = 2}).Take(8000)));
  EXPECT_NEAR(static_cast<double>(std::count(values.begin(), values.end(), 1)) / 8000, 0.5, 0.03);
}

// Without stop_on_empty_dataset an exhausted dataset drops out and the
// sequence ends with the last one; with it, the first exhausted draw ends it.
TEST(SampleFromDatasetsDatasetTest, ExhaustedDatasets) {
  auto pipeline = Pipeline::SampleFromDatasets({Pipeline::Range(5), Pipeline::Range({.start = 10, .stop = 30})},
                                               {.weights = {10, 1}, .seed = 3});
  std::vector<int64_t> values = testing::Values(testing::Collect(pipeline));
  EXPECT_EQ(values.size(), 25u);
  auto stopping = Pipeline::SampleFromDatasets({Pipeline::Range(5), Pipeline::Range({.start = 10, .stop = 30})},
                                               {.weights = {10, 1}, .seed = 3, .stop_on_empty_dataset = true});
  values = testing::Values(testing::Collect(stopping));
  // range(5) runs out first (its weight is ten times the other's) and its
  // next draw ends the run.
  EXPECT_EQ(std::count_if(values.begin(), values.end(), [](int64_t v) { return v < 5; }), 5);
  EXPECT_LT(values.size(), 25u);
}

TEST(SampleFromDatasetsDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights = {1}}), StatusCode::kInvalidArgument,
                       "sample_from_datasets: Invalid `weights`. `weights` should have the same length as `datasets` "
                       "but got `len(weights)=1` vs. `len(datasets)=2`.");
  testing::ExpectError(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights = {1, -1}}),
                       StatusCode::kInvalidArgument,
                       "sample_from_datasets: weights[1] must be finite and >= 0 (got -1)");
  testing::ExpectError(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights = {0, 0}}),
                       StatusCode::kInvalidArgument,
                       "sample_from_datasets: the weights must have a finite sum above 0 (got 0)");
  testing::ExpectError(Pipeline::SampleFromDatasets({}), StatusCode::kInvalidArgument,
                       "sample_from_datasets: datasets is empty (give at least one)");
  testing::ExpectError(Pipeline::SampleFromDatasets({Ones(), Pipeline::FromTensors({{"", Tensor::Scalar("a")}})}),
                       StatusCode::kInvalidArgument, "sample_from_datasets: All datasets must have the same type");
}

// Weight vectors that change per draw, from a dataset: one-hot vectors
// pick exactly, and the sampling ends with the vectors.
DatasetPtr WeightVectors(std::vector<float> values, int64_t length) {
  return testing::Build(Pipeline::FromSlices(
      {{"", Tensor::FromVector(values, Shape{static_cast<int64_t>(values.size()) / length, length})}}));
}

TEST(SampleFromDatasetsDatasetTest, WeightsFromADataset) {
  auto picked = Pipeline::SampleFromDatasets(
      {Ones(), Twos()}, {.weights_dataset = WeightVectors({1, 0, 0, 1, 0, 1, 1, 0, 0, 2}, 2), .seed = 4});
  testing::ExpectProduces(picked, testing::Ints({1, 2, 2, 1, 2}));
  // Mixed weights follow the draw's vector.
  std::vector<float> halves;
  for (int i = 0; i < 4000; ++i) halves.insert(halves.end(), {i < 2000 ? 3.0f : 0.0f, 1.0f});
  std::vector<int64_t> values = testing::Values(testing::Collect(
      Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights_dataset = WeightVectors(halves, 2), .seed = 8})));
  ASSERT_EQ(values.size(), 4000u);
  EXPECT_NEAR(static_cast<double>(std::count(values.begin(), values.begin() + 2000, 1)) / 2000, 0.75, 0.04);
  EXPECT_EQ(std::count(values.begin() + 2000, values.end(), 1), 0);
  // A bad vector fails its draw only.
  auto bad = Pipeline::SampleFromDatasets({Ones(), Twos()},
                                          {.weights_dataset = WeightVectors({1, 0, -1, 2, 0, 0, 0, 1}, 2), .seed = 4});
  const std::vector<Result<Element>> results = testing::CollectResults(testing::Build(bad));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ((*results[0])[0].scalar<int64_t>(), 1);
  testing::ExpectStatus(
      results[1].status(), StatusCode::kInvalidArgument,
      "sample_from_datasets: a weights_dataset element's weights[0] must be finite and >= 0 (got -1)");
  testing::ExpectStatus(results[2].status(), StatusCode::kInvalidArgument,
                        "sample_from_datasets: a weights_dataset element's weights must have a finite sum above 0 "
                        "(got 0)");
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 2);
  testing::ExpectResumesEverywhere([] {
    return Pipeline::SampleFromDatasets(
        {Pipeline::Range(3), Pipeline::Range({.start = 10, .stop = 13})},
        {.weights_dataset = WeightVectors({1, 1, 1, 3, 0, 1, 2, 2, 1, 0, 5, 1}, 2), .seed = 2});
  });
}

TEST(SampleFromDatasetsDatasetTest, WeightsDatasetInvalidArguments) {
  testing::ExpectError(
      Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights = {1, 1}, .weights_dataset = WeightVectors({1, 1}, 2)}),
      StatusCode::kInvalidArgument, "sample_from_datasets: weights and weights_dataset are exclusive; got both");
  testing::ExpectError(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights_dataset = WeightVectors({1, 1, 1}, 3)}),
                       StatusCode::kInvalidArgument,
                       "sample_from_datasets: weights_dataset's vectors hold 3 weights, for 2 datasets");
  testing::ExpectError(
      Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights_dataset = testing::Build(Pipeline::Range(3))}),
      StatusCode::kInvalidArgument,
      "sample_from_datasets: weights_dataset's elements are (int64[]); each must be one float32 or float64 vector");
  // A vector of unknown length is checked per draw.
  DatasetPtr unknown = testing::Build(Pipeline::FromTensors({{"", Tensor::FromVector<double>({1, 1, 1})}})
                                          .Map([](Element e) -> Result<Element> { return e; },
                                               {.output_spec = ElementSpec{{"", DType::kFloat64, PartialShape{-1}}}}));
  const std::vector<Result<Element>> results = testing::CollectResults(
      testing::Build(Pipeline::SampleFromDatasets({Ones(), Twos()}, {.weights_dataset = unknown})));
  ASSERT_EQ(results.size(), 1u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "sample_from_datasets: a weights_dataset element has shape [3]; each must hold one weight "
                        "per dataset, [2]");
}

// Each iterator draws the next sequence, still a function of the seed.
TEST(SampleFromDatasetsDatasetTest, RerandomizeEachIteration) {
  auto make = [] {
    return testing::Build(
        Pipeline::SampleFromDatasets({Ones(), Twos()}, {.seed = 3, .rerandomize_each_iteration = true}).Take(64));
  };
  const DatasetPtr dataset = make();
  const std::vector<int64_t> first = testing::Values(testing::Collect(dataset));
  const std::vector<int64_t> second = testing::Values(testing::Collect(dataset));
  EXPECT_NE(first, second);
  const DatasetPtr again = make();
  EXPECT_EQ(testing::Values(testing::Collect(again)), first);
  EXPECT_EQ(testing::Values(testing::Collect(again)), second);
}

TEST(SampleFromDatasetsDatasetTest, SpecRoundTrip) {
  const DatasetPtr dataset = testing::Build(Pipeline::SampleFromDatasets(
      {Ones().Take(3), Twos().Take(3)},
      {.weights_dataset = WeightVectors({1, 0, 0, 1, 0, 1, 1, 0}, 2), .seed = 4, .rerandomize_each_iteration = true}));
  const spec::Pipeline spec = testing::Ok(DatasetToSpec(*dataset));
  const std::string text = SpecToText(spec);
  EXPECT_NE(text.find("rerandomize_each_iteration: true"), std::string::npos) << text;
  EXPECT_NE(text.find("weights_dataset {"), std::string::npos) << text;
  testing::ExpectProduces(testing::Ok(DatasetFromSpec(spec)), testing::Ints({1, 2, 2, 1}));
}

TEST(SampleFromDatasetsDatasetTest, ErrorsPassThrough) {
  auto results = testing::CollectResults(
      testing::Build(Pipeline::SampleFromDatasets({testing::FailingRange(4, {2})}, {.seed = 1})));
  ASSERT_EQ(results.size(), 4u);
  testing::ExpectFailedElement(results[2], 2);
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 3);
}

// The generator's position is part of the saved state.
TEST(SampleFromDatasetsDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] {
    return Pipeline::SampleFromDatasets({Pipeline::Range(4), testing::FailingRange(6, {3}), Twos().Take(3)},
                                        {.weights = {1, 2, 1}});
  });
  testing::ExpectResumesEverywhere([] {
    return Pipeline::SampleFromDatasets({Pipeline::Range(6), Pipeline::Range(3)},
                                        {.seed = 9, .stop_on_empty_dataset = true});
  });
}

TEST(SampleFromDatasetsDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::SampleFromDatasets({Pipeline::Range(100).Prefetch(2), Pipeline::Range(100)})), 3);
}

}  // namespace
}  // namespace sluice

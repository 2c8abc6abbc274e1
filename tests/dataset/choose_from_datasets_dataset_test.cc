#include "sluice/dataset/choose_from_datasets_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

Element Str(const std::string& s) { return Element{Tensor::Scalar(s)}; }
Pipeline Forever(const std::string& s) { return Pipeline::FromTensors({{"", Tensor::Scalar(s)}}).Repeat(); }
Pipeline Choices(std::vector<int64_t> choices) { return Pipeline::FromSlices({{"", testing::Vec(choices)}}); }

// tf.data's documented example: foo, bar, baz chosen by range(3).repeat(3).
TEST(ChooseFromDatasetsDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::ChooseFromDatasets({Forever("foo"), Forever("bar"), Forever("baz")},
                                               Pipeline::Range(3).Repeat(3));
  testing::ExpectProduces(pipeline, {Str("foo"), Str("bar"), Str("baz"), Str("foo"), Str("bar"), Str("baz"),
                                     Str("foo"), Str("bar"), Str("baz")});
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), 9);
  EXPECT_EQ(testing::Build(pipeline)->element_spec().ToString(), "(string[])");
}

// With stop_on_empty_dataset (the default) the first exhausted choice ends
// the sequence; without it the exhausted dataset is dropped and skipped.
TEST(ChooseFromDatasetsDatasetTest, AnExhaustedDataset) {
  const std::vector<Pipeline> datasets = {Pipeline::Range(2), Pipeline::Range({.start = 10, .stop = 13})};
  testing::ExpectProduces(Pipeline::ChooseFromDatasets(datasets, Choices({0, 0, 0, 1, 0, 1})), testing::Ints({0, 1}));
  testing::ExpectProduces(
      Pipeline::ChooseFromDatasets(datasets, Choices({0, 0, 0, 1, 0, 1}), {.stop_on_empty_dataset = false}),
      testing::Ints({0, 1, 10, 11}));
  EXPECT_EQ(testing::Build(Pipeline::ChooseFromDatasets(datasets, Choices({0, 1})))->cardinality(),
            kUnknownCardinality);
  // Every dataset exhausted ends it, though the choices go on forever.
  testing::ExpectProduces(Pipeline::ChooseFromDatasets({Pipeline::Range(2)}, Pipeline::Counter({.step = 0}),
                                                       {.stop_on_empty_dataset = false}),
                          testing::Ints({0, 1}));
  testing::ExpectProduces(Pipeline::ChooseFromDatasets(datasets, Choices({})), {});
}

TEST(ChooseFromDatasetsDatasetTest, ShapesBecomeTheirCommonShape) {
  auto pairs = Pipeline::FromSlices({{"x", Tensor::FromVector<int64_t>({1, 2, 3, 4}, Shape{2, 2})}});
  auto triples = Pipeline::FromSlices({{"x", Tensor::FromVector<int64_t>({5, 6, 7}, Shape{1, 3})}});
  auto pipeline = Pipeline::ChooseFromDatasets({pairs, triples}, Choices({1, 0}));
  EXPECT_EQ(testing::Build(pipeline)->element_spec().ToString(), "(x: int64[?])");
  testing::ExpectProduces(pipeline, {Element{testing::Vec({5, 6, 7})}, Element{testing::Vec({1, 2})}});
}

// An index out of range is that choice's error; the iterator goes on.
TEST(ChooseFromDatasetsDatasetTest, IndexOutOfRange) {
  auto results = testing::CollectResults(testing::Build(
      Pipeline::ChooseFromDatasets({Pipeline::Range(3), Pipeline::Range(3)}, Choices({0, 2, -1, 1}))));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ((*results[0])[0].scalar<int64_t>(), 0);
  testing::ExpectStatus(results[1].status(), StatusCode::kInvalidArgument,
                        "choose_from_datasets: Selector index out of range: 2 >= 2");
  testing::ExpectStatus(results[2].status(), StatusCode::kInvalidArgument,
                        "choose_from_datasets: Selector index out of range: -1 < 0");
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 0);
}

TEST(ChooseFromDatasetsDatasetTest, ErrorsPassThrough) {
  auto results = testing::CollectResults(testing::Build(
      Pipeline::ChooseFromDatasets({testing::FailingRange(3, {1})}, testing::FailingRange(4, {2}).Map(
                                                                        [](Element) -> Result<Element> {
                                                                          return testing::Int(0);
                                                                        }))));
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ((*results[0])[0].scalar<int64_t>(), 0);
  testing::ExpectFailedElement(results[1], 1);
  testing::ExpectFailedElement(results[2], 2);
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 2);
}

TEST(ChooseFromDatasetsDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::ChooseFromDatasets({}, Choices({0})), StatusCode::kInvalidArgument,
                       "choose_from_datasets: datasets is empty (give at least one)");
  testing::ExpectError(
      Pipeline::ChooseFromDatasets({Pipeline::Range(2)}, Pipeline::Range({.stop = 2, .dtype = DType::kInt32})),
      StatusCode::kInvalidArgument,
      "choose_from_datasets: The selector input must be a dataset of scalar int64 elements; got (int32[])");
  testing::ExpectError(Pipeline::ChooseFromDatasets({Pipeline::Range(2), Forever("a")}, Choices({0})),
                       StatusCode::kInvalidArgument,
                       "choose_from_datasets: All datasets must have the same type: datasets[0] has elements "
                       "(int64[]) but datasets[1] has (string[])");
}

TEST(ChooseFromDatasetsDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] {
    return Pipeline::ChooseFromDatasets({Pipeline::Range(2), testing::FailingRange(5, {3})},
                                        Choices({1, 0, 1, 7, 0, 0, 1, 1, 1, 0}), {.stop_on_empty_dataset = false});
  });
  testing::ExpectResumesEverywhere(
      [] { return Pipeline::ChooseFromDatasets({Pipeline::Range(2), Pipeline::Range(5)}, Choices({1, 0, 0, 0, 1})); });
}

TEST(ChooseFromDatasetsDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::ChooseFromDatasets({Pipeline::Range(100).Prefetch(2), Pipeline::Range(100)},
                                                  Pipeline::Range(2).Repeat())),
      3);
}

}  // namespace
}  // namespace sluice

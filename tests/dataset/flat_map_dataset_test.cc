#include "sluice/dataset/flat_map_dataset.h"

#include "contract.h"
#include "planted_stages.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::Vec;

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// A spec function: `text` is its pipeline, starting with an element_source.
Result<DatasetFunctionPtr> SpecFunction(const std::string& text, const ElementSpec& input) {
  SLUICE_ASSIGN_OR_RETURN(spec::Pipeline function, ParseSpecText(text));
  return MakeSpecDatasetFunction(std::move(function), input);
}

// x -> range(10 * x, 10 * x + x % 4): datasets of 0..3 elements, empty ones included.
Result<DatasetPtr> Uneven(const Element& e) {
  const int64_t x = e[0].scalar<int64_t>();
  return Pipeline::Range({.start = 10 * x, .stop = 10 * x + x % 4}).Build();
}

// tf.data's documented example:
//   from_tensor_slices([[1, 2, 3], [4, 5, 6], [7, 8, 9]]).flat_map(from_tensor_slices)
TEST(FlatMapDatasetTest, DocumentedExample) {
  const Tensor matrix = Tensor::FromVector(std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}, Shape{3, 3});
  const ElementSpec row{{"", DType::kInt64, Shape{3}}};
  testing::ExpectProduces(
      Pipeline::FromSlices({{"", matrix}}).FlatMap(SpecFunction("ops { element_source { kind: SLICES } }", row)),
      testing::IntRange(1, 10));
}

// The concatenation of each element's dataset, as interleave with cycle_length 1.
TEST(FlatMapDatasetTest, ConcatenatesInOrderAsInterleaveWithOneSlot) {
  std::vector<Element> expected;
  for (int64_t x = 0; x < 11; ++x) {
    for (int64_t v = 10 * x; v < 10 * x + x % 4; ++v) expected.push_back(testing::Int(v));
  }
  testing::ExpectProduces(Pipeline::Range(11).FlatMap(Uneven, kInt64Scalar), expected);
  testing::ExpectElementsEqual(
      testing::Collect(Pipeline::Range(11).Interleave(Uneven, kInt64Scalar, {.cycle_length = 1})), expected);
}

TEST(FlatMapDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(3).FlatMap(
      SpecFunction("ops { element_source { kind: RANGE } } ops { batch { batch_size: 2 } }", kInt64Scalar)));
  EXPECT_EQ(dataset->element_spec().ToString(), "(int64[?])");
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(dataset->op_name(), "flat_map");
  EXPECT_EQ(DescribeGraph(*dataset).find("interleave"), std::string::npos) << DescribeGraph(*dataset);
  EXPECT_EQ(testing::Build(Pipeline::Range(0).FlatMap(Uneven, kInt64Scalar))->cardinality(), 0);
}

TEST(FlatMapDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).FlatMap(DatasetFunctionPtr()), StatusCode::kInvalidArgument,
                       "flat_map: function is null");
  testing::ExpectError(
      Pipeline::Range(3).FlatMap(SpecFunction("ops { element_source { kind: SLICES } }", kInt64Scalar)),
      StatusCode::kInvalidArgument, "SLICES needs components of rank >= 1");
  const ElementSpec strings{{"", DType::kString, Shape{}}};
  testing::ExpectError(Pipeline::Range(3).FlatMap(MakeLambdaDatasetFunction(Uneven, kInt64Scalar)).FlatMap(
                           SpecFunction("ops { element_source { kind: TENSORS } }", strings)),
                       StatusCode::kInvalidArgument, "flat_map(pipeline(element_source(TENSORS))): ");
}

// A function's error is its element's; an input error too; the iterator goes on.
TEST(FlatMapDatasetTest, ErrorsMidStream) {
  auto fails_on_two = [](const Element& e) -> Result<DatasetPtr> {
    if (e[0].scalar<int64_t>() == 2) return InvalidArgumentError("no dataset for 2");
    return Uneven(e);
  };
  auto results = testing::CollectResults(testing::Build(Pipeline::Range(4).FlatMap(fails_on_two, kInt64Scalar)));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_TRUE(results[0]->Equals(testing::Int(10)));
  testing::ExpectStatus(results[1].status(), StatusCode::kInvalidArgument, "flat_map(lambda): no dataset for 2");
  EXPECT_TRUE(results[2]->Equals(testing::Int(30)));
  auto input_errors = testing::CollectResults(testing::Build(testing::FailingRange(4, {1}).FlatMap(Uneven, kInt64Scalar)));
  ASSERT_EQ(input_errors.size(), 6u);
  testing::ExpectFailedElement(input_errors[0], 1);
  EXPECT_TRUE(input_errors[1]->Equals(testing::Int(20)));
}

TEST(FlatMapDatasetTest, SpecRoundTrip) {
  const std::string text =
      "ops { range { stop: 4 step: 1 dtype: \"int64\" } } "
      "ops { flat_map { function { ops { element_source { kind: RANGE } } ops { batch { batch_size: 2 } } } } }";
  const DatasetPtr dataset = testing::Ok(DatasetFromSpec(testing::Ok(ParseSpecText(text))));
  const spec::Pipeline written = testing::Ok(DatasetToSpec(*dataset));
  EXPECT_EQ(SpecToText(written), SpecToText(testing::Ok(ParseSpecText(text))));
  testing::ExpectProduces(dataset, {Element{Vec({0})}, Element{Vec({0, 1})}, Element{Vec({0, 1})}, Element{Vec({2})}});
  // A lambda function keeps the graph in-process.
  EXPECT_EQ(DatasetToSpec(*testing::Build(Pipeline::Range(3).FlatMap(Uneven, kInt64Scalar))).status().code(),
            StatusCode::kUnimplemented);
}

TEST(FlatMapDatasetTest, ResumesMidDataset) {
  testing::ExpectResumesEverywhere([] { return Pipeline::Range(9).FlatMap(Uneven, kInt64Scalar); });
  testing::ExpectResumesEverywhere([] {
    return testing::FailingRange(6, {3}).FlatMap(
        SpecFunction("ops { element_source { kind: RANGE } } ops { shuffle { buffer_size: 3 seed: 7 } }", kInt64Scalar));
  });
}

TEST(FlatMapDatasetTest, ProfilerNode) {
  const DatasetPtr dataset = testing::Build(Pipeline::Range(6).FlatMap(Uneven, kInt64Scalar));
  const ProfileSnapshot snapshot = testing::ProfileAll(dataset)->Snapshot();
  const NodeSnapshot* node = testing::FindNode(snapshot, "flat_map");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->elements, 0 + 1 + 2 + 3 + 0 + 1);
}

TEST(FlatMapDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(1000).FlatMap([](const Element& e) -> Result<DatasetPtr> {
        return Pipeline::Range(e[0].scalar<int64_t>()).Prefetch(2).Build();
      }, kInt64Scalar)), 5);
}

}  // namespace
}  // namespace sluice

#include "sluice/dataset/parse_sequence_example.h"

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// Three SequenceExamples with context "id" and the feature lists "xy" (two
// floats a step) and "tokens" (any number of strings a step):
//   id 1: xy [1 2] [3 4]; tokens [a b] [] [c]
//   id 2: no xy;          tokens (no steps)
//   id 3: xy [5 6];       tokens [d]
std::string WriteSequences(const std::string& dir) {
  const std::string path = dir + "/sequences.tfrecord";
  auto writer = RecordWriter::Open(path, {});
  EXPECT_TRUE(writer.ok()) << writer.status();
  const std::vector<std::vector<std::vector<float>>> xy = {{{1, 2}, {3, 4}}, {}, {{5, 6}}};
  const std::vector<std::vector<std::vector<std::string>>> tokens = {{{"a", "b"}, {}, {"c"}}, {}, {{"d"}}};
  for (int i = 0; i < 3; ++i) {
    tensorflow::SequenceExample sequence;
    (*sequence.mutable_context()->mutable_feature())["id"].mutable_int64_list()->add_value(i + 1);
    auto& lists = *sequence.mutable_feature_lists()->mutable_feature_list();
    if (i != 1) {
      for (const std::vector<float>& step : xy[i]) {
        auto* values = lists["xy"].add_feature()->mutable_float_list();
        for (float v : step) values->add_value(v);
      }
    }
    auto& token_list = lists["tokens"];
    for (const std::vector<std::string>& step : tokens[i]) {
      auto* values = token_list.add_feature()->mutable_bytes_list();
      for (const std::string& t : step) values->add_value(t);
    }
    (*sequence.mutable_context()->mutable_feature())["unrequested"].mutable_bytes_list()->add_value("skipped");
    EXPECT_TRUE((*writer)->WriteRecord(sequence.SerializeAsString()).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return path;
}

class ParseSequenceExampleTest : public ::testing::Test {
 protected:
  Pipeline Records() const { return Pipeline::TFRecord({.files = {path_}}); }

  static Result<ElementFunctionPtr> Parse(bool xy_required = false) {
    return MakeParseSequenceExampleFunction(
        "", {{.key = "id", .dtype = DType::kInt64}},
        {{.key = "xy", .dtype = DType::kFloat32, .shape = Shape{2}, .required = xy_required},
         {.key = "tokens", .dtype = DType::kString, .layout = StepLayout::kVarLen}});
  }

  TempDir dir_;
  const std::string path_ = WriteSequences(dir_.path());
};

TEST_F(ParseSequenceExampleTest, SingleRecords) {
  const DatasetPtr dataset = Build(Records().Map(Parse()));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"id", DType::kInt64, Shape{}},
                                                  {"xy", DType::kFloat32, {-1, 2}},
                                                  {"tokens", DType::kString, {-1}},
                                                  {"tokens/row_lengths", DType::kInt64, {-1}}}));
  const std::vector<Element> elements = Collect(dataset);
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[0][0].scalar<int64_t>(), 1);
  EXPECT_TRUE(elements[0][1].Equals(Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2})));
  EXPECT_TRUE(elements[0][2].Equals(Tensor::FromVector<std::string>({"a", "b", "c"})));
  EXPECT_TRUE(elements[0][3].Equals(Tensor::FromVector<int64_t>({2, 0, 1})));
  // A missing list that is not required has zero steps.
  EXPECT_TRUE(elements[1][1].Equals(Tensor::FromVector<float>({}, Shape{0, 2})));
  EXPECT_EQ(elements[1][3].NumElements(), 0);
  EXPECT_TRUE(elements[2][2].Equals(Tensor::FromVector<std::string>({"d"})));
}

// After batch(): one parse per batch; FixedLen lists padded to the batch's
// most steps, with each record's steps in "<key>/lengths".
TEST_F(ParseSequenceExampleTest, BatchesParseAtOnce) {
  const DatasetPtr dataset = Build(Records().Batch({.batch_size = 2}).Map(Parse()));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"id", DType::kInt64, {-1}},
                                                  {"xy", DType::kFloat32, {-1, -1, 2}},
                                                  {"xy/lengths", DType::kInt64, {-1}},
                                                  {"tokens", DType::kString, {-1}},
                                                  {"tokens/row_lengths", DType::kInt64, {-1}},
                                                  {"tokens/lengths", DType::kInt64, {-1}}}));
  const std::vector<Element> batches = Collect(dataset);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<int64_t>({1, 2})));
  EXPECT_TRUE(batches[0][1].Equals(Tensor::FromVector<float>({1, 2, 3, 4, 0, 0, 0, 0}, Shape{2, 2, 2})));
  EXPECT_TRUE(batches[0][2].Equals(Tensor::FromVector<int64_t>({2, 0})));
  EXPECT_TRUE(batches[0][3].Equals(Tensor::FromVector<std::string>({"a", "b", "c"})));
  EXPECT_TRUE(batches[0][4].Equals(Tensor::FromVector<int64_t>({2, 0, 1})));
  EXPECT_TRUE(batches[0][5].Equals(Tensor::FromVector<int64_t>({3, 0})));
  EXPECT_TRUE(batches[1][1].Equals(Tensor::FromVector<float>({5, 6}, Shape{1, 1, 2})));
}

// A required list a record lacks is that element's error, naming the
// feature, and the file and byte offset of the record; the next record
// follows.
TEST_F(ParseSequenceExampleTest, ErrorsNameTheFeatureAndTheRecord) {
  const std::vector<Result<Element>> results = CollectResults(Build(Records().Map(Parse(/*xy_required=*/true))));
  ASSERT_EQ(results.size(), 3u);
  EXPECT_TRUE(results[0].ok()) << results[0].status();
  ASSERT_FALSE(results[1].ok());
  EXPECT_EQ(results[1].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[1].status().message().find("Feature list 'xy' (float) is required but missing"), std::string::npos)
      << results[1].status();
  EXPECT_NE(results[1].status().message().find(StrCat("of ", path_)), std::string::npos) << results[1].status();
  EXPECT_TRUE(results[2].ok()) << results[2].status();
  // Batched, the batch's error names the record in the batch and where it was read.
  const std::vector<Result<Element>> batches =
      CollectResults(Build(Records().Batch({.batch_size = 3}).Map(Parse(/*xy_required=*/true))));
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_FALSE(batches[0].ok());
  EXPECT_NE(batches[0].status().message().find("is required but missing in record 1"), std::string::npos)
      << batches[0].status();
  EXPECT_NE(batches[0].status().message().find(StrCat("of ", path_)), std::string::npos) << batches[0].status();
  // A step of the wrong size.
  const std::vector<Result<Element>> sizes = CollectResults(Build(Records().Map(
      MakeParseSequenceExampleFunction("", {}, {{.key = "xy", .dtype = DType::kFloat32, .shape = Shape{3}}}))));
  ASSERT_FALSE(sizes[0].ok());
  EXPECT_NE(sizes[0].status().message().find("step 0"), std::string::npos) << sizes[0].status();
}

TEST_F(ParseSequenceExampleTest, InvalidConfigurationsFailAtBuildTime) {
  ExpectError(Records().Map(MakeParseSequenceExampleFunction("", {}, {})), StatusCode::kInvalidArgument,
              "parse_sequence_example: no features to parse");
  ExpectError(Pipeline::Range(3).Map(Parse()), StatusCode::kInvalidArgument,
              "must hold serialized SequenceExamples, a string scalar or vector");
  ExpectError(Records().Map(MakeParseSequenceExampleFunction("", {}, {{.key = "x", .dtype = DType::kFloat64}})),
              StatusCode::kInvalidArgument, "parse_sequence_example");
  ExpectError(Records().Map(MakeParseSequenceExampleFunction("", {{.key = "x"}}, {{.key = "x"}})),
              StatusCode::kInvalidArgument, "parse_sequence_example");
}

TEST_F(ParseSequenceExampleTest, SpecRoundTrip) {
  for (const bool batched : {false, true}) {
    Pipeline records = batched ? Records().Batch({.batch_size = 2}) : Records();
    const DatasetPtr dataset = Build(records.Map(Parse(/*xy_required=*/true)));
    const std::string text = SpecToText(Ok(DatasetToSpec(*dataset)));
    EXPECT_NE(text.find("parse_sequence_example"), std::string::npos) << text;
    EXPECT_NE(text.find("required: true"), std::string::npos) << text;
    const DatasetPtr back = Ok(DatasetFromSpec(Ok(ParseSpecText(text))));
    EXPECT_EQ(back->element_spec(), dataset->element_spec());
    const std::vector<Result<Element>> expected = CollectResults(dataset);
    ExpectSameResults(CollectResults(back), expected, "spec round trip");
  }
}

}  // namespace
}  // namespace sluice

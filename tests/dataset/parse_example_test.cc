#include "sluice/dataset/parse_example.h"

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/temp_dir.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// Three Examples: label (int64), pair (2 floats), tokens (1..3 strings);
// the third has no pair.
std::string WriteExamples(const std::string& dir) {
  const std::string path = dir + "/examples.tfrecord";
  auto writer = RecordWriter::Open(path, {.compression = Compression::kGzip});
  EXPECT_TRUE(writer.ok()) << writer.status();
  for (int i = 0; i < 3; ++i) {
    tensorflow::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    features["label"].mutable_int64_list()->add_value(10 + i);
    if (i < 2) {
      features["pair"].mutable_float_list()->add_value(i + 0.5f);
      features["pair"].mutable_float_list()->add_value(-i);
    }
    for (int t = 0; t <= i; ++t) features["tokens"].mutable_bytes_list()->add_value(StrCat("t", t));
    features["unrequested"].mutable_bytes_list()->add_value("skipped");
    EXPECT_TRUE((*writer)->WriteRecord(example.SerializeAsString()).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return path;
}

class ParseExampleTest : public ::testing::Test {
 protected:
  Pipeline Records() const { return Pipeline::TFRecord({.files = {path_}, .compression = Compression::kGzip}); }

  static std::vector<FeatureConfig> Features() {
    return {{.key = "label", .dtype = DType::kInt64},
            {.key = "pair", .dtype = DType::kFloat32, .shape = Shape{2},
             .default_value = Tensor::Scalar<float>(9)},
            {.key = "tokens", .dtype = DType::kString, .layout = FeatureLayout::kVarLen}};
  }

  TempDir dir_;
  const std::string path_ = WriteExamples(dir_.path());
};

TEST_F(ParseExampleTest, SingleRecords) {
  const DatasetPtr dataset = Build(Records().Map(MakeParseExampleFunction("", Features())));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"label", DType::kInt64, Shape{}},
                                                  {"pair", DType::kFloat32, Shape{2}},
                                                  {"tokens", DType::kString, {-1}}}));
  const std::vector<Element> elements = Collect(dataset);
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[0][0].scalar<int64_t>(), 10);
  EXPECT_TRUE(elements[1][1].Equals(Tensor::FromVector<float>({1.5f, -1.f})));
  EXPECT_TRUE(elements[2][1].Equals(Tensor::FromVector<float>({9.f, 9.f})));  // the default
  EXPECT_TRUE(elements[2][2].Equals(Tensor::FromVector<std::string>({"t0", "t1", "t2"})));
}

// After batch(): one vectorised parse per batch, VarLen as values + row_lengths.
TEST_F(ParseExampleTest, BatchesParseAtOnce) {
  const DatasetPtr dataset =
      Build(Records().Batch({.batch_size = 2}).Map(MakeParseExampleFunction("", Features())));
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"label", DType::kInt64, {-1}},
                                                  {"pair", DType::kFloat32, {-1, 2}},
                                                  {"tokens", DType::kString, {-1}},
                                                  {"tokens/row_lengths", DType::kInt64, {-1}}}));
  const std::vector<Element> batches = Collect(dataset);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<int64_t>({10, 11})));
  EXPECT_TRUE(batches[0][1].Equals(Tensor::FromVector<float>({0.5f, 0.f, 1.5f, -1.f}, Shape{2, 2})));
  EXPECT_TRUE(batches[0][2].Equals(Tensor::FromVector<std::string>({"t0", "t0", "t1"})));
  EXPECT_TRUE(batches[0][3].Equals(Tensor::FromVector<int64_t>({1, 2})));
  EXPECT_TRUE(batches[1][3].Equals(Tensor::FromVector<int64_t>({3})));
  // A known batch size shows in the spec.
  const DatasetPtr fixed = Build(
      Records().Batch({.batch_size = 2, .drop_remainder = true}).Map(MakeParseExampleFunction("", Features())));
  EXPECT_EQ(fixed->element_spec()[1].shape, PartialShape({2, 2}));
  EXPECT_EQ(fixed->element_spec()[2].shape, PartialShape({-1}));
  EXPECT_EQ(fixed->element_spec()[3].shape, PartialShape({2}));
}

// Bytes features are views of the records, so the parse copies none; the
// parsed batches outlive the iterator that read the records.
TEST_F(ParseExampleTest, BytesFeaturesViewTheRecords) {
  std::vector<Element> batches;
  {
    auto it = Build(Records().Batch({.batch_size = 2}).Map(MakeParseExampleFunction("", Features())))
                  ->MakeIterator();
    while (std::optional<Element> batch = Ok(it->GetNext())) batches.push_back(std::move(*batch));
  }
  ASSERT_EQ(batches.size(), 2u);
  const Tensor& tokens = batches[1][2];
  EXPECT_TRUE(tokens.Equals(Tensor::FromVector<std::string>({"t0", "t1", "t2"})));
  EXPECT_TRUE(tokens.data<TString>()[2].is_view());
  EXPECT_GT(tokens.BackingBytes(), 0u);
}

// With only FixedLen features the function is row-wise: map parses runs as
// batches, and batching after it gives what parsing after batch gives.
TEST_F(ParseExampleTest, FixedLenOnlyIsRowWise) {
  const std::vector<FeatureConfig> fixed = {Features()[0], Features()[1]};
  const std::vector<Element> parse_then_batch =
      Collect(Records().Map(MakeParseExampleFunction("", fixed)).Batch({.batch_size = 2}));
  const std::vector<Element> batch_then_parse =
      Collect(Records().Batch({.batch_size = 2}).Map(MakeParseExampleFunction("", fixed)));
  ASSERT_EQ(parse_then_batch.size(), 2u);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(parse_then_batch[i].Equals(batch_then_parse[i]));
  ExpectRunsMatchElements(Build(Records().Map(MakeParseExampleFunction("", fixed))), 2);
}

TEST_F(ParseExampleTest, ErrorsNameTheFeatureAndRecord) {
  // A required feature no record has.
  std::vector<FeatureConfig> features = Features();
  features.push_back({.key = "weight", .dtype = DType::kFloat32});
  const std::vector<Result<Element>> results =
      CollectResults(Build(Records().Batch({.batch_size = 2}).Map(MakeParseExampleFunction("", features))));
  ASSERT_EQ(results.size(), 2u);
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("Feature 'weight' (float) is required but missing in record 0"),
            std::string::npos)
      << results[0].status();
  // Wrong kind.
  const std::vector<Result<Element>> kinds = CollectResults(
      Build(Records().Map(MakeParseExampleFunction("", {{.key = "label", .dtype = DType::kFloat32}}))));
  ASSERT_FALSE(kinds[0].ok());
  EXPECT_NE(kinds[0].status().message().find("'label'"), std::string::npos) << kinds[0].status();
  EXPECT_NE(kinds[0].status().message().find("int64"), std::string::npos) << kinds[0].status();
}

TEST_F(ParseExampleTest, InvalidConfigurationsFailAtBuildTime) {
  ExpectError(Records().Map(MakeParseExampleFunction("", {{.key = "x", .dtype = DType::kFloat64}})),
              StatusCode::kInvalidArgument, "parse_example");
  ExpectError(Pipeline::Range(3).Map(MakeParseExampleFunction("", Features())), StatusCode::kInvalidArgument,
              "must hold serialized Examples, a string scalar or vector");
  ExpectError(Records().Map(MakeParseExampleFunction("records", Features())), StatusCode::kInvalidArgument,
              "records");
}

TEST_F(ParseExampleTest, SpecRoundTrip) {
  const DatasetPtr dataset =
      Build(Records().Batch({.batch_size = 2}).Map(MakeParseExampleFunction("", Features())));
  const std::string text = SpecToText(Ok(DatasetToSpec(*dataset)));
  EXPECT_NE(text.find("parse_example"), std::string::npos) << text;
  const DatasetPtr back = Ok(DatasetFromSpec(Ok(ParseSpecText(text))));
  EXPECT_EQ(back->element_spec(), dataset->element_spec());
  const std::vector<Element> expected = Collect(dataset);
  const std::vector<Element> actual = Collect(back);
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) EXPECT_TRUE(actual[i].Equals(expected[i]));
}

// tf.io.FixedLenFeature needs a fully defined shape: a negative dim in a
// spec is rejected when the pipeline is built, naming the feature, instead
// of failing on every record.
TEST_F(ParseExampleTest, FixedLenShapesMustBeFullyDefined) {
  const std::string text = StrCat(
      "ops { tfrecord { files: \"", path_, "\" compression: \"GZIP\" } }\n",
      "ops { map { fn { parse_example { features { key: \"label\" dtype: \"int64\" shape: -1 } } } } }\n");
  Result<DatasetPtr> dataset = DatasetFromSpec(Ok(ParseSpecText(text)));
  ASSERT_FALSE(dataset.ok());
  EXPECT_EQ(dataset.status().code(), StatusCode::kInvalidArgument) << dataset.status();
  EXPECT_NE(dataset.status().message().find("Feature 'label' has shape [-1]: dimension 0 is -1"), std::string::npos)
      << dataset.status();
  ExpectError(Records().Map(MakeParseExampleFunction("", {{.key = "label", .shape = Shape{int64_t{1} << 62, 4}}})),
              StatusCode::kInvalidArgument, "Feature 'label': shape [4611686018427387904, 4]");
}

}  // namespace
}  // namespace sluice

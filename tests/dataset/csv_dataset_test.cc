#include "sluice/dataset/csv_dataset.h"

#include <cmath>
#include <limits>

#include "sluice/dataset/pipeline_spec_io.h"
#include "sluice/tests/dataset/contract.h"
#include "sluice/tests/write_file.h"

namespace sluice {
namespace {

using namespace ::sluice::testing;

// tf.data's CsvDataset documentation example: required float32, an
// optional float32 defaulting to 0, a required int32, columns 1 to 3.
TEST(CsvDatasetTest, TheTfDataDocumentationExample) {
  TempDir dir;
  const std::string path = WriteFile(dir, "my_file0.csv", "abcdefg,4.28E10,5.55E6,12\nhijklmn,-5.3E14,,2\n");
  const Pipeline pipeline = Pipeline::Csv(
      {.files = {path},
       .record_defaults = {CsvRequired(DType::kFloat32), Tensor::Scalar(0.0f), CsvRequired(DType::kInt32)},
       .select_cols = {1, 2, 3}});
  ExpectProduces(pipeline, {Element{Tensor::Scalar(4.28e10f), Tensor::Scalar(5.55e6f), Tensor::Scalar<int32_t>(12)},
                            Element{Tensor::Scalar(-5.3e14f), Tensor::Scalar(0.0f), Tensor::Scalar<int32_t>(2)}});
  EXPECT_EQ(
      Build(pipeline)->element_spec(),
      (ElementSpec{{"", DType::kFloat32, Shape{}}, {"", DType::kFloat32, Shape{}}, {"", DType::kInt32, Shape{}}}));
}

TEST(CsvDatasetTest, EveryDtypeDefaultsHeadersAndNames) {
  TempDir dir;
  const std::string path = WriteFile(dir, "t.csv",
                                     "name,count,score,big,note\r\n"
                                     "\"Smith, J\", 3 ,+1.5,9000000000,\"said \"\"hi\"\"\"\r\n"
                                     "NA,,nan,-1,\r\n"
                                     "x,-7,-inf,NA,\"\"\r\n");
  const Pipeline pipeline =
      Pipeline::Csv({.files = {path},
                     .record_defaults = {Tensor::Scalar("?"), Tensor::Scalar<int32_t>(-1), Tensor::Scalar(0.0),
                                         Tensor::Scalar<int64_t>(0), Tensor::Scalar("none")},
                     .column_names = {"name", "count", "score", "big", "note"},
                     .header = true,
                     .na_value = "NA"});
  const std::vector<Element> elements = Collect(pipeline);
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[0][0].scalar<TString>(), "Smith, J");
  EXPECT_EQ(elements[0][1].scalar<int32_t>(), 3);
  EXPECT_EQ(elements[0][2].scalar<double>(), 1.5);
  EXPECT_EQ(elements[0][3].scalar<int64_t>(), 9000000000);
  EXPECT_EQ(elements[0][4].scalar<TString>(), "said \"hi\"");
  EXPECT_EQ(elements[1][0].scalar<TString>(), "?");
  EXPECT_EQ(elements[1][1].scalar<int32_t>(), -1);
  EXPECT_TRUE(std::isnan(elements[1][2].scalar<double>()));
  EXPECT_EQ(elements[1][4].scalar<TString>(), "none");
  EXPECT_EQ(elements[2][2].scalar<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(elements[2][3].scalar<int64_t>(), 0);
  EXPECT_EQ(elements[2][4].scalar<TString>(), "none");  // "" quoted is empty too, as in tf.data
  EXPECT_EQ(Build(pipeline)->element_spec()[3].name, "big");
  for (int64_t max_rows : {1, 2, 64}) ExpectRunsMatchElements(Build(pipeline), max_rows);
}

TEST(CsvDatasetTest, ExcludeColumnsAndDelimiters) {
  TempDir dir;
  const std::string path = WriteFile(dir, "t.tsv", "1\tskip\t2\tskip\n3\tx\t4\ty\n");
  ExpectProduces(Pipeline::Csv({.files = {path},
                                .record_defaults = {CsvRequired(DType::kInt64), CsvRequired(DType::kInt64)},
                                .field_delim = '\t',
                                .exclude_cols = {1, 3}}),
                 {Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(2)},
                  Element{Tensor::Scalar<int64_t>(3), Tensor::Scalar<int64_t>(4)}});
}

// Each bad record is its element's error, naming file, record, offset,
// column and field; the records after it follow.
TEST(CsvDatasetTest, BadRecordsAreErrorsNamingWhatAndWhere) {
  TempDir dir;
  const std::string path = WriteFile(dir, "bad.csv",
                                     "1,2\n"
                                     "1\n"
                                     "1,2,3\n"
                                     ",2\n"
                                     "1,99999999999\n"
                                     "1,2x\n"
                                     "1,\"2\"x\"\n"
                                     "5,6\n");
  const std::vector<Tensor> defaults = {CsvRequired(DType::kInt32), Tensor::Scalar<int32_t>(0)};
  auto it =
      Build(Pipeline::Csv({.files = {path}, .record_defaults = defaults, .column_names = {"a", "b"}}))->MakeIterator();
  const std::vector<Result<Element>> results = CollectResults(*it);
  ASSERT_EQ(results.size(), 8u);
  EXPECT_TRUE(results[0].ok());
  ExpectStatus(results[1].status(), StatusCode::kDataLoss,
               path + ": record 1 at byte offset 4: the record has 1 fields, expected 2");
  ExpectStatus(results[2].status(), StatusCode::kDataLoss,
               path + ": record 2 at byte offset 6: the record has 3 fields, expected 2");
  ExpectStatus(results[3].status(), StatusCode::kDataLoss,
               path + ": record 3 at byte offset 12: column 0 ('a') is required, but its field is empty");
  ExpectStatus(results[4].status(), StatusCode::kDataLoss,
               path + ": record 4 at byte offset 15: column 1 ('b'): '99999999999' is not a valid int32");
  ExpectStatus(results[5].status(), StatusCode::kDataLoss,
               path + ": record 5 at byte offset 29: column 1 ('b'): '2x' is not a valid int32");
  ExpectStatus(results[6].status(), StatusCode::kDataLoss,
               path + ": record 6 at byte offset 34: field 1 is quoted and holds a '\"' that is not doubled");
  EXPECT_EQ(Ok(results[7])[0].scalar<int32_t>(), 5);
  ExpectProduces(Pipeline::Csv({.files = {path}, .record_defaults = defaults}).IgnoreErrors(),
                 {Element{Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(2)},
                  Element{Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(6)}});
}

TEST(CsvDatasetTest, InvalidArguments) {
  const std::vector<Tensor> one = {Tensor::Scalar(1.0f)};
  ExpectError(Pipeline::Csv({.record_defaults = one}), StatusCode::kInvalidArgument, "csv: no files given");
  ExpectError(Pipeline::Csv({.files = {"a"}}), StatusCode::kInvalidArgument,
              "record_defaults must have 1 to 65536 entries (one per column), got 0");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = {Tensor::Scalar(true)}}), StatusCode::kInvalidArgument,
              "record_defaults[0] is bool, not float32, float64, int32, int64 or string");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = {Tensor::FromVector<float>({1, 2})}}),
              StatusCode::kInvalidArgument, "record_defaults[0] has shape [2]");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .select_cols = {2, 1}}),
              StatusCode::kInvalidArgument, "select_cols must be ascending without repeats");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .select_cols = {0, 1}}),
              StatusCode::kInvalidArgument, "select_cols has 2 columns, but record_defaults 1");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .select_cols = {0}, .exclude_cols = {1}}),
              StatusCode::kInvalidArgument, "can't both be given");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .field_delim = '\n'}),
              StatusCode::kInvalidArgument, "field_delim can't be");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .column_names = {"x", "y"}}),
              StatusCode::kInvalidArgument, "column_names has 2 names for 1 columns");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = {one[0], one[0]}, .column_names = {"x", "x"}}),
              StatusCode::kInvalidArgument, "column_names repeats 'x'");
  ExpectError(Pipeline::Csv({.files = {"a"}, .record_defaults = one, .exclude_cols = {-1}}),
              StatusCode::kInvalidArgument, "exclude_cols[0] is -1, not a column index in [0, 65536)");
}

TEST(CsvDatasetTest, ResumesEverywhereAndRoundTripsThroughSpecs) {
  TempDir dir;
  std::string text = "id,word\n";
  for (int i = 0; i < 100; ++i) text += std::to_string(i) + ",\"w" + std::to_string(i) + "\"\n";
  const std::vector<std::string> files = {WriteFile(dir, "part-0.csv", text), WriteFile(dir, "part-1.csv", text)};
  const auto make = [&] {
    return Pipeline::Csv({.files = files,
                          .record_defaults = {Tensor::Scalar<int64_t>(0), Tensor::Scalar("")},
                          .buffer_size = 64,
                          .num_parallel_reads = 2,
                          .header = true});
  };
  ExpectResumesEverywhere(make);
  ExpectResumesEverywhere([&] { return make().Batch({.batch_size = 16}); });
  const std::vector<Element> expected = Collect(make());
  ASSERT_EQ(expected.size(), 200u);
  const std::string written = SpecToText(Ok(DatasetToSpec(*Build(make()))));
  EXPECT_NE(written.find("header: true"), std::string::npos) << written;
  ExpectProduces(Ok(DatasetFromSpec(Ok(ParseSpecText(written)))), expected);

  const std::string interleaved = StrCat(R"(
    ops { list_files { patterns: ")",
                                         dir.path(), R"(/part-*.csv" shuffle: false } }
    ops { interleave { cycle_length: 2 function { ops { element_source { kind: CSV csv {
      record_defaults { dtype: "int64" int_values: 0 }
      record_defaults { dtype: "string" shape: 0 }
      header: true
    } } } } } }
  )");
  ExpectProduces(Ok(DatasetFromSpec(Ok(ParseSpecText(interleaved)))), expected);
}

}  // namespace
}  // namespace sluice

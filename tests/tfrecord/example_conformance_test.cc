// The fast parsers on real files written by TensorFlow and TFX (the corpus
// in ../shared/testdata/tfrecord/, see corpus.h): every Example and
// SequenceExample file of the manifest, with a schema made from the
// manifest's description of it. Checks the first records' values against the
// manifest, every record against protobuf's parse (reference_parse.h), and
// the canonical feature dump of each file against the manifest's digest
// (which checks our .proto files against TensorFlow's).
#include <bit>
#include <cstdio>
#include <map>

#include "corpus.h"
#include "example_test_util.h"
#include "reference_parse.h"
#include "sluice/tfrecord/example_parser.h"
#include "sluice/tfrecord/record_reader.h"
#include "sluice/tfrecord/sequence_example_parser.h"

namespace sluice {
namespace {

using google::protobuf::Struct;
using google::protobuf::Value;
using testing::Field;
using testing::Ok;

std::vector<std::string> ReadRecords(const std::string& path, Compression compression) {
  std::vector<std::string> records;
  std::unique_ptr<RecordReader> reader =
      Ok(RecordReader::Open(path, RecordReaderOptions{.compression = compression}));
  std::string record;
  while (reader != nullptr && Ok(reader->ReadRecord(&record))) records.push_back(record);
  return records;
}

// The entries of a JSON object, sorted by key.
std::map<std::string, Value> Entries(const Value& object) {
  const auto& fields = object.struct_value().fields();
  return {fields.begin(), fields.end()};
}

// A manifest kind ("int64", "bytes|none", ...) as the dtype that holds it.
DType DTypeOfKind(const std::string& kind) {
  if (kind.starts_with("bytes")) return DType::kString;
  return kind.starts_with("float") ? DType::kFloat32 : DType::kInt64;
}

// A feature present in every record with always the same number n of values
// is kFixedLen (a scalar when n is 1); any other is kVarLen.
FeatureConfig ConfigFor(const std::string& key, const Value& description, int64_t records) {
  const std::string kind = Field(description.struct_value(), "kind").string_value();
  const auto min =
      static_cast<int64_t>(Field(description.struct_value(), "value_count_min").number_value());
  const auto max =
      static_cast<int64_t>(Field(description.struct_value(), "value_count_max").number_value());
  const auto with_key =
      static_cast<int64_t>(Field(description.struct_value(), "records_with_key").number_value());
  FeatureConfig config{.key = key, .dtype = DTypeOfKind(kind), .layout = FeatureLayout::kVarLen};
  if (with_key == records && kind.find("none") == std::string::npos && min == max) {
    config.layout = FeatureLayout::kFixedLen;
    config.shape = min == 1 ? Shape{} : Shape{min};
  }
  return config;
}

std::vector<FeatureConfig> ConfigsFor(const Value& schema, int64_t records) {
  std::vector<FeatureConfig> configs;
  for (const auto& [key, description] : Entries(schema)) {
    configs.push_back(ConfigFor(key, description, records));
  }
  return configs;
}

std::vector<SequenceFeatureConfig> SequenceConfigsFor(const Value& schema, int64_t records) {
  std::vector<SequenceFeatureConfig> configs;
  for (const auto& [key, description] : Entries(schema)) {
    const Struct& d = description.struct_value();
    const auto min = static_cast<int64_t>(Field(d, "values_per_step_min").number_value());
    const auto max = static_cast<int64_t>(Field(d, "values_per_step_max").number_value());
    SequenceFeatureConfig config{
        .key = key,
        .dtype = DTypeOfKind(Field(d, "kind").string_value()),
        .layout = min == max ? StepLayout::kFixedLen : StepLayout::kVarLen,
        .required = static_cast<int64_t>(Field(d, "records_with_key").number_value()) == records};
    if (min == max && min != 1) config.shape = Shape{min};
    configs.push_back(config);
  }
  return configs;
}

std::string Hex(std::string_view bytes) {
  std::string hex;
  char digits[3];
  for (unsigned char c : bytes) {
    std::snprintf(digits, sizeof(digits), "%02x", c);
    hex += digits;
  }
  return hex;
}

std::string FloatBits(float value) {
  char bits[9];
  std::snprintf(bits, sizeof(bits), "%08x", std::bit_cast<uint32_t>(value));
  return bits;
}

// Checks `values` (flat, of the feature's dtype) against the manifest's
// list of feature descriptions {kind, count, values, bits}, one per step
// (one in all for an Example feature).
void ExpectManifestValues(const Tensor& values, const std::vector<const Struct*>& expected) {
  int64_t i = 0;
  for (const Struct* feature : expected) {
    const auto& list = Field(*feature, "values").list_value().values();
    for (int j = 0; j < list.size(); ++j, ++i) {
      ASSERT_LT(i, values.NumElements());
      if (values.dtype() == DType::kString) {
        const std::string actual(values.data<TString>()[i]);
        const Struct& value = list[j].struct_value();
        EXPECT_EQ(static_cast<double>(actual.size()), Field(value, "len").number_value());
        if (Field(value, "hex").has_string_value()) {
          EXPECT_EQ(Hex(actual), Field(value, "hex").string_value());
        } else {
          EXPECT_EQ(testing::Sha256Hex(actual), Field(value, "sha256").string_value());
        }
      } else if (values.dtype() == DType::kFloat32) {
        EXPECT_EQ(FloatBits(values.data<float>()[i]),
                  Field(*feature, "bits").list_value().values(j).string_value());
      } else {
        EXPECT_EQ(static_cast<double>(values.data<int64_t>()[i]), list[j].number_value());
      }
    }
  }
  EXPECT_EQ(i, values.NumElements());
}

// One line per feature of `features`, sorted by key: "<prefix>\t<key>\t" +
// the rest of the manifest's feature_dump_format.
std::string FeatureLine(const tensorflow::Feature& feature) {
  std::string values;
  auto append = [&](const std::string& value) { values += (values.empty() ? "" : ",") + value; };
  for (const std::string& v : feature.bytes_list().value()) append(Hex(v));
  for (float v : feature.float_list().value()) append(FloatBits(v));
  for (int64_t v : feature.int64_list().value()) append(std::to_string(v));
  return StrCat(FeatureKindName(testing::KindOf(feature)), "\t", testing::CountOf(feature), "\t",
                values, "\n");
}

std::string DumpFeatures(const std::string& prefix, const tensorflow::Features& features) {
  const std::map<std::string, tensorflow::Feature> sorted(features.feature().begin(),
                                                          features.feature().end());
  std::string dump;
  for (const auto& [key, feature] : sorted)
    dump += prefix + "\t" + key + "\t" + FeatureLine(feature);
  return dump;
}

// The manifest's canonical dump of a file's records, from protobuf's parse.
std::string FeatureDump(const std::vector<std::string>& records, bool sequence) {
  std::string dump;
  for (size_t r = 0; r < records.size(); ++r) {
    dump += StrCat("#", r, "\n");
    if (!sequence) {
      tensorflow::Example example;
      EXPECT_TRUE(example.ParseFromString(records[r]));
      dump += DumpFeatures("F", example.features());
      continue;
    }
    tensorflow::SequenceExample example;
    EXPECT_TRUE(example.ParseFromString(records[r]));
    dump += DumpFeatures("C", example.context());
    const std::map<std::string, tensorflow::FeatureList> lists(
        example.feature_lists().feature_list().begin(),
        example.feature_lists().feature_list().end());
    for (const auto& [key, list] : lists) {
      for (int step = 0; step < list.feature_size(); ++step) {
        dump += "L\t" + key + "\t" + std::to_string(step) + "\t" + FeatureLine(list.feature(step));
      }
    }
  }
  return dump;
}

// The manifest's first records, parsed one by one, against its values.
void CheckFirstRecords(const Result<Element>& parsed, const ElementSpec& spec, const Struct& first,
                       bool sequence) {
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  for (const char* map : {"features", "context"}) {
    for (const auto& [key, feature] : Entries(Field(first, map))) {
      SCOPED_TRACE(key);
      const Tensor& values = (*parsed)[Ok(spec.IndexOf(key))];
      ExpectManifestValues(values, {&feature.struct_value()});
    }
  }
  if (!sequence) return;
  for (const auto& [key, steps] : Entries(Field(first, "feature_lists"))) {
    SCOPED_TRACE(key);
    std::vector<const Struct*> expected;
    for (const Value& step : steps.list_value().values()) expected.push_back(&step.struct_value());
    ExpectManifestValues((*parsed)[Ok(spec.IndexOf(key))], expected);
  }
}

TEST(ExampleConformanceTest, TensorFlowWrittenFiles) {
  SLUICE_SKIP_WITHOUT_PROTOBUF_JSON();
  int files = 0;
  for (const Struct& file : testing::CorpusFiles()) {
    const std::string type = Field(file, "record_type").string_value();
    const Struct& parsed = Field(file, "parsed").struct_value();
    if (type != "tf.train.Example" && type != "tf.train.SequenceExample") continue;
    if (Field(file, "category").string_value() != "valid") continue;
    const std::string name = Field(file, "file").string_value();
    SCOPED_TRACE(name);
    ++files;
    const bool sequence = type == "tf.train.SequenceExample";
    const auto record_count = static_cast<int64_t>(Field(file, "record_count").number_value());
    const std::vector<std::string> records =
        ReadRecords(testing::kCorpusDir + name,
                    Ok(ParseCompression(Field(file, "compression").string_value())));
    ASSERT_EQ(static_cast<int64_t>(records.size()), record_count);
    EXPECT_EQ(testing::Sha256Hex(FeatureDump(records, sequence)),
              Field(parsed, "feature_dump_sha256").string_value());

    const std::vector<std::string_view> views(records.begin(), records.end());
    const auto& first_records = Field(parsed, "first_records").list_value().values();
    if (!sequence) {
      Result<ExampleSchema> schema =
          ExampleSchema::Make(ConfigsFor(Field(parsed, "schema"), record_count));
      ASSERT_TRUE(schema.ok()) << schema.status();
      const ExampleParser parser(std::move(schema).value());
      testing::ExpectSameResult(parser.ParseBatch(views),
                                testing::ReferenceParse(parser.schema(), records, true));
      for (int r = 0; r < first_records.size(); ++r) {
        CheckFirstRecords(parser.ParseSingle(records[r]), parser.element_spec(),
                          first_records[r].struct_value(), sequence);
      }
    } else {
      Result<SequenceExampleSchema> schema = SequenceExampleSchema::Make(
          ConfigsFor(Field(parsed, "context_schema"), record_count),
          SequenceConfigsFor(Field(parsed, "feature_lists_schema"), record_count));
      ASSERT_TRUE(schema.ok()) << schema.status();
      const SequenceExampleParser parser(std::move(schema).value());
      testing::ExpectSameResult(parser.ParseBatch(views),
                                testing::ReferenceParse(parser.schema(), records, true));
      for (int r = 0; r < first_records.size(); ++r) {
        CheckFirstRecords(parser.ParseSingle(records[r]), parser.element_spec(),
                          first_records[r].struct_value(), sequence);
      }
    }
  }
  EXPECT_EQ(files, 6);
}

}  // namespace
}  // namespace sluice

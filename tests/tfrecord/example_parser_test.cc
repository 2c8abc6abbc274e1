#include "sluice/tfrecord/example_parser.h"

#include <gmock/gmock.h>

#include "example_test_util.h"

namespace sluice {
namespace {

using testing::BytesFeature;
using testing::FloatFeature;
using ::testing::HasSubstr;
using testing::Int64Feature;
using testing::LengthDelimitedField;
using testing::MapEntry;
using testing::Ok;
using testing::SerializeExample;
using testing::VarintField;

ExampleParser MakeParser(std::vector<FeatureConfig> features) {
  Result<ExampleSchema> schema = ExampleSchema::Make(std::move(features));
  EXPECT_TRUE(schema.ok()) << schema.status();
  return ExampleParser(std::move(schema).value());
}

std::string FromHex(std::string_view hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return bytes;
}

void ExpectTensor(const Tensor& actual, const Tensor& expected) {
  EXPECT_TRUE(actual.Equals(expected))
      << actual.DebugString() << "\nexpected " << expected.DebugString();
}

// The test vector of tfdata.md §5.1: a: int64 [1, 2], b: float [1.5], c: bytes ["xy"].
TEST(ExampleParserTest, ParsesTheReferenceTestVector) {
  const std::string record = FromHex(
      "0a29"
      "0a0b0a0161"
      "12061a040a020102"
      "0a0d0a0162"
      "120812060a040000c03f"
      "0a0b0a0163"
      "12060a040a027879");
  ASSERT_EQ(record.size(), 43u);
  const ExampleParser parser = MakeParser({{.key = "a", .shape = Shape{2}},
                                           {.key = "b", .dtype = DType::kFloat32},
                                           {.key = "c", .dtype = DType::kString}});
  const Element out = Ok(parser.ParseSingle(record));
  ASSERT_EQ(out.size(), 3u);
  ExpectTensor(out[0], Tensor::FromVector<int64_t>({1, 2}));
  ExpectTensor(out[1], Tensor::Scalar(1.5f));
  ExpectTensor(out[2], Tensor::Scalar("xy"));
  EXPECT_TRUE(parser.element_spec().Check(out).ok());

  tensorflow::Example example;  // and protobuf agrees
  ASSERT_TRUE(example.ParseFromString(record));
  EXPECT_EQ(example.features().feature().at("c").bytes_list().value(0), "xy");
}

// Hand-encoded Features payloads: a Feature of one list field.
std::string Int64List(std::string_view list) { return LengthDelimitedField(3, list); }
std::string FloatList(std::string_view list) { return LengthDelimitedField(2, list); }
std::string Packed(std::initializer_list<uint64_t> values) {
  std::string varints;
  for (uint64_t v : values) varints += testing::Varint(v);
  return LengthDelimitedField(1, varints);
}
std::string ExampleOf(std::string_view entries) { return LengthDelimitedField(1, entries); }

struct SingleCase {
  std::string name;
  FeatureConfig config;
  std::string record;
  Tensor expected;             // when the parse succeeds
  std::string expected_error;  // otherwise, a substring of the message
};

std::vector<SingleCase> SingleCases() {
  const tensorflow::Feature ints = Int64Feature({7, 8, 9});
  return {
      {"FixedLenScalar",
       {.key = "x"},
       SerializeExample({{"x", Int64Feature({5})}}),
       Tensor::Scalar<int64_t>(5)},
      {"FixedLenMatrix",
       {.key = "x", .dtype = DType::kFloat32, .shape = Shape{2, 2}},
       SerializeExample({{"x", FloatFeature({1, 2, 3, 4})}}),
       Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2})},
      {"FixedLenStrings",
       {.key = "x", .dtype = DType::kString, .shape = Shape{2}},
       SerializeExample({{"x", BytesFeature({"", std::string("\0z", 2)})}}),
       Tensor::FromVector<std::string>({"", std::string("\0z", 2)})},
      {"ScalarDefaultBroadcasts",
       {.key = "x", .shape = Shape{3}, .default_value = Tensor::Scalar<int64_t>(-1)},
       SerializeExample({{"other", ints}}),
       Tensor::FromVector<int64_t>({-1, -1, -1})},
      {"FullDefault",
       {.key = "x",
        .dtype = DType::kString,
        .shape = Shape{2},
        .default_value = Tensor::FromVector<std::string>({"p", "q"})},
       SerializeExample({}),
       Tensor::FromVector<std::string>({"p", "q"})},
      {"EmptyFeatureIsMissing",
       {.key = "x", .default_value = Tensor::Scalar<int64_t>(3)},
       SerializeExample({{"x", tensorflow::Feature()}}),
       Tensor::Scalar<int64_t>(3)},
      {"EmptyFeatureWithoutDefault",
       {.key = "x"},
       SerializeExample({{"x", tensorflow::Feature()}}),
       {},
       "Feature 'x' (int64) is required but missing"},
      {"MissingWithoutDefault",
       {.key = "label"},
       SerializeExample({{"other", ints}}),
       {},
       "Feature 'label' (int64) is required but missing"},
      {"WrongKind",
       {.key = "x", .dtype = DType::kFloat32},
       SerializeExample({{"x", ints}}),
       {},
       "Feature 'x': expected float, found int64"},
      {"WrongCount",
       {.key = "x", .dtype = DType::kFloat32, .shape = Shape{2, 2}},
       SerializeExample({{"x", FloatFeature({1, 2, 3})}}),
       {},
       "Feature 'x': expected 4 float values (shape [2, 2]), found 3"},
      {"EmptyListIsNotMissing",
       {.key = "x", .default_value = Tensor::Scalar<int64_t>(3)},
       SerializeExample({{"x", Int64Feature({})}}),
       {},
       "expected 1 int64 values (shape []), found 0"},
      {"NegativeInt64",
       {.key = "x", .shape = Shape{2}},
       SerializeExample({{"x", Int64Feature({-1, INT64_MIN})}}),
       Tensor::FromVector<int64_t>({-1, INT64_MIN})},
      {"VarLen",
       {.key = "x", .layout = FeatureLayout::kVarLen},
       SerializeExample({{"x", ints}}),
       Tensor::FromVector<int64_t>({7, 8, 9})},
      {"VarLenMissing",
       {.key = "x", .dtype = DType::kString, .layout = FeatureLayout::kVarLen},
       SerializeExample({}),
       Tensor::FromVector<std::string>({})},
      {"PaddedSingleIsUnpadded",
       {.key = "x", .layout = FeatureLayout::kVarLenPadded},
       SerializeExample({{"x", ints}}),
       Tensor::FromVector<int64_t>({7, 8, 9})},
      {"UnpackedInt64s",
       {.key = "x", .shape = Shape{2}},
       ExampleOf(MapEntry("x", Int64List(VarintField(1, 4) + VarintField(1, 5)))),
       Tensor::FromVector<int64_t>({4, 5})},
      {"UnpackedFloats",
       {.key = "x", .dtype = DType::kFloat32, .shape = Shape{2}},
       ExampleOf(
           MapEntry("x", FloatList(testing::Fixed32Field(1, 0.5f) + testing::Fixed32Field(1, -2)))),
       Tensor::FromVector<float>({0.5f, -2})},
      {"PackedAndUnpackedMix",
       {.key = "x", .layout = FeatureLayout::kVarLen},
       ExampleOf(MapEntry("x", Int64List(Packed({1, 2}) + VarintField(1, 3) + Packed({4})))),
       Tensor::FromVector<int64_t>({1, 2, 3, 4})},
      {"RepeatedListFieldsConcatenate",
       {.key = "x", .layout = FeatureLayout::kVarLen},
       ExampleOf(MapEntry("x", Int64List(Packed({1})) + Int64List(Packed({2, 3})))),
       Tensor::FromVector<int64_t>({1, 2, 3})},
      {"LaterKindReplacesEarlier",
       {.key = "x", .dtype = DType::kFloat32},
       ExampleOf(MapEntry("x", Int64List(Packed({1})) + FloatFeature({2.5f}).SerializeAsString())),
       Tensor::Scalar(2.5f)},
      {"DuplicateKeyLastWins",
       {.key = "x"},
       SerializeExample({{"x", Int64Feature({1})}, {"y", ints}, {"x", Int64Feature({2})}}),
       Tensor::Scalar<int64_t>(2)},
      {"DuplicateKeyLastWinsEvenIfEmpty",
       {.key = "x", .default_value = Tensor::Scalar<int64_t>(0)},
       SerializeExample({{"x", Int64Feature({1})}, {"x", tensorflow::Feature()}}),
       Tensor::Scalar<int64_t>(0)},
      {"EntryValueBeforeKey",
       {.key = "x"},
       ExampleOf(
           LengthDelimitedField(1, LengthDelimitedField(2, Int64Feature({6}).SerializeAsString()) +
                                       LengthDelimitedField(1, "x"))),
       Tensor::Scalar<int64_t>(6)},
      {"EntryValueRepeatedMerges",
       {.key = "x", .layout = FeatureLayout::kVarLen},
       ExampleOf(LengthDelimitedField(
           1, LengthDelimitedField(1, "x") +
                  LengthDelimitedField(2, Int64Feature({1}).SerializeAsString()) +
                  LengthDelimitedField(2, Int64Feature({2}).SerializeAsString()))),
       Tensor::FromVector<int64_t>({1, 2})},
      {"ConcatenatedExamplesMerge",
       {.key = "x", .shape = Shape{2}},
       SerializeExample({{"x", Int64Feature({1, 1})}}) + SerializeExample({{"y", ints}}) +
           SerializeExample({{"x", Int64Feature({2, 3})}}),
       Tensor::FromVector<int64_t>({2, 3})},
      {"UnknownFieldsAreSkipped",
       {.key = "x", .shape = Shape{2}},
       VarintField(7, 1) +
           ExampleOf(testing::Fixed32Field(3, 1) +
                     LengthDelimitedField(
                         1, VarintField(3, 9) + LengthDelimitedField(1, "x") +
                                LengthDelimitedField(
                                    2, VarintField(4, 1) +
                                           Int64List(Packed({8, 9}) + VarintField(2, 1))))) +
           testing::Tag(9, WireType::kStartGroup) + VarintField(1, 1) +
           testing::Tag(9, WireType::kEndGroup),
       Tensor::FromVector<int64_t>({8, 9})},
  };
}

TEST(ExampleParserTest, SingleRecordCases) {
  for (const SingleCase& c : SingleCases()) {
    SCOPED_TRACE(c.name);
    const ExampleParser parser = MakeParser({c.config});
    tensorflow::Example example;
    EXPECT_TRUE(example.ParseFromString(c.record)) << "protobuf rejects the test record";
    const Result<Element> out = parser.ParseSingle(c.record);
    if (!c.expected_error.empty()) {
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
      EXPECT_THAT(out.status().message(), HasSubstr(c.expected_error));
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    ExpectTensor((*out)[0], c.expected);
    EXPECT_TRUE(parser.element_spec().Check(*out).ok());
  }
}

// Three records for the batch tests: label 1..3, ragged ids, record 1 lacks
// both "weight" and "ids".
std::vector<std::string> BatchRecords() {
  return {SerializeExample({{"label", Int64Feature({1})},
                            {"weight", FloatFeature({0.5f, 1.5f})},
                            {"ids", Int64Feature({10, 11})},
                            {"text", BytesFeature({"a"})}}),
          SerializeExample({{"text", BytesFeature({})}, {"label", Int64Feature({2})}}),
          SerializeExample({{"ids", Int64Feature({12, 13, 14})},
                            {"label", Int64Feature({3})},
                            {"weight", FloatFeature({2, 3})},
                            {"text", BytesFeature({"b", "c"})}})};
}

std::vector<std::string_view> Views(const std::vector<std::string>& records) {
  return {records.begin(), records.end()};
}

TEST(ExampleParserTest, BatchWritesEveryLayout) {
  const ExampleParser parser = MakeParser({
      {.key = "label"},
      {.key = "weight",
       .dtype = DType::kFloat32,
       .shape = Shape{2},
       .default_value = Tensor::Scalar(-1.0f)},
      {.key = "ids", .layout = FeatureLayout::kVarLen},
      {.key = "text", .dtype = DType::kString, .layout = FeatureLayout::kVarLenPadded},
      {.key = "ids_padded",
       .layout = FeatureLayout::kVarLenPadded,
       .default_value = Tensor::Scalar<int64_t>(-7)},
  });
  EXPECT_EQ(parser.batched_element_spec().ToString(),
            "(label: int64[?], weight: float32[?, 2], ids: int64[?], ids/row_lengths: int64[?], "
            "text: string[?, ?], ids_padded: int64[?, ?])");
  const std::vector<std::string> records = BatchRecords();
  const Element out = Ok(parser.ParseBatch(Views(records)));
  ASSERT_TRUE(parser.batched_element_spec().Check(out).ok())
      << parser.batched_element_spec().Check(out);
  ExpectTensor(out[0], Tensor::FromVector<int64_t>({1, 2, 3}));
  ExpectTensor(out[1], Tensor::FromVector<float>({0.5f, 1.5f, -1, -1, 2, 3}, Shape{3, 2}));
  ExpectTensor(out[2], Tensor::FromVector<int64_t>({10, 11, 12, 13, 14}));
  ExpectTensor(out[3], Tensor::FromVector<int64_t>({2, 0, 3}));
  ExpectTensor(out[4], Tensor::FromVector<std::string>({"a", "", "", "", "b", "c"}, Shape{3, 2}));
  ExpectTensor(out[5], Tensor::FromVector<int64_t>({}, Shape{3, 0}));  // nowhere to pad
}

TEST(ExampleParserTest, BatchEqualsStackedSingles) {
  const ExampleParser parser =
      MakeParser({{.key = "label"}, {.key = "ids", .layout = FeatureLayout::kVarLenPadded}});
  const std::vector<std::string> records = BatchRecords();
  const Element batch = Ok(parser.ParseBatch(Views(records)));
  const std::vector<std::vector<int64_t>> ids = {{10, 11}, {}, {12, 13, 14}};
  for (size_t r = 0; r < records.size(); ++r) {
    const Element single = Ok(parser.ParseSingle(records[r]));
    EXPECT_TRUE(parser.element_spec().Check(single).ok());
    ExpectTensor(single[0], batch[0].Row(static_cast<int64_t>(r)));
    ExpectTensor(single[1], Tensor::FromVector<int64_t>(ids[r]));
  }
}

// Parse of a string tensor gives the same values, with bytes features as
// views of the records that keep them alive after every other handle is gone.
TEST(ExampleParserTest, ParseOfATensorViewsTheRecords) {
  const ExampleParser parser = MakeParser({
      {.key = "label"},
      {.key = "text", .dtype = DType::kString, .layout = FeatureLayout::kVarLenPadded},
      {.key = "c", .dtype = DType::kString, .default_value = Tensor::Scalar("default")},
  });
  const std::vector<std::string> records = BatchRecords();
  const Element copied = Ok(parser.ParseBatch(Views(records)));
  Element viewed;
  {
    const Tensor tensor = Tensor::FromVector(records);
    viewed = Ok(parser.Parse(tensor));
    const Element single = Ok(parser.Parse(tensor.Row(2)));
    ExpectTensor(single[1], Tensor::FromVector<std::string>({"b", "c"}));
    EXPECT_TRUE(single[1].data<TString>()[0].is_view());
  }
  ASSERT_EQ(viewed.size(), copied.size());
  for (size_t i = 0; i < viewed.size(); ++i) ExpectTensor(viewed[i], copied[i]);
  EXPECT_TRUE(viewed[1].data<TString>()[0].is_view());   // "a", from record 0
  EXPECT_FALSE(viewed[1].data<TString>()[1].is_view());  // padding
  EXPECT_EQ(viewed[2].data<TString>()[0], "default");
  EXPECT_GT(viewed[1].BackingBytes(), 0u);
  EXPECT_EQ(copied[1].BackingBytes(), 0u);  // copied into the output's own block
}

TEST(ExampleParserTest, EmptyBatch) {
  const ExampleParser parser = MakeParser({{.key = "x", .shape = Shape{2}},
                                           {.key = "y", .layout = FeatureLayout::kVarLen},
                                           {.key = "z", .layout = FeatureLayout::kVarLenPadded}});
  const Element out = Ok(parser.ParseBatch({}));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape(), (Shape{0, 2}));
  EXPECT_EQ(out[1].shape(), Shape{0});
  EXPECT_EQ(out[2].shape(), Shape{0});
  EXPECT_EQ(out[3].shape(), (Shape{0, 0}));
}

TEST(ExampleParserTest, BatchErrorsNameTheRecord) {
  const std::vector<std::string> records = BatchRecords();
  EXPECT_EQ(MakeParser({{.key = "weight", .dtype = DType::kFloat32, .shape = Shape{2}}})
                .ParseBatch(Views(records))
                .status()
                .message(),
            "Feature 'weight' (float) is required but missing in record 1");
  EXPECT_EQ(MakeParser({{.key = "text", .dtype = DType::kString}})
                .ParseBatch(Views(records))
                .status()
                .message(),
            "Feature 'text' in record 1: expected 1 bytes values (shape []), found 0");
  EXPECT_EQ(MakeParser({{.key = "ids", .dtype = DType::kFloat32, .layout = FeatureLayout::kVarLen}})
                .ParseBatch(Views(records))
                .status()
                .message(),
            "Feature 'ids' in record 0: expected float, found int64");
}

// Damaged bytes give InvalidArgument, never a crash.
TEST(ExampleParserTest, MalformedRecords) {
  const ExampleParser parser = MakeParser({{.key = "x", .layout = FeatureLayout::kVarLen}});
  const std::string entry_key = LengthDelimitedField(1, "x");
  const struct {
    std::string name;
    std::string record;
    std::string error;
  } cases[] = {
      {"TruncatedVarint", std::string("\x08\x80", 2),
       "Invalid Example: malformed Example: truncated varint"},
      {"VarintOver10Bytes", std::string("\x08") + std::string(10, '\xff') + "\x01",
       "varint longer than 10 bytes"},
      {"LengthOverflow", std::string("\x0a\x05\x0a\x00", 4),
       "malformed Example: length-delimited field overruns its message"},
      {"HugeLength", std::string("\x0a") + testing::Varint(~0ull >> 1), "overruns its message"},
      {"TagZero", std::string("\x00\x00", 2), "field number 0"},
      {"StrayEndGroup", testing::Tag(3, WireType::kEndGroup), "end-group tag without a start"},
      {"WireType7", std::string("\x0f"), "invalid wire type"},
      {"UnterminatedGroup", testing::Tag(3, WireType::kStartGroup), "unterminated group"},
      {"MismatchedGroup",
       testing::Tag(3, WireType::kStartGroup) + testing::Tag(4, WireType::kEndGroup),
       "mismatched end-group tag"},
      {"EntryOverflow", ExampleOf(LengthDelimitedField(1, entry_key + "\x12\x09")),
       "Invalid Example: malformed Features: length-delimited field overruns its message"},
      {"PackedFloatsNotMultipleOf4",
       ExampleOf(MapEntry("x", FloatList(LengthDelimitedField(1, "abc")))),
       "Feature 'x': malformed Feature: packed floats of 3 bytes, not a multiple of 4"},
      {"PackedVarintTruncated",
       ExampleOf(MapEntry("x", Int64List(LengthDelimitedField(1, "\x01\x81")))),
       "Feature 'x': malformed Feature: truncated varint in packed int64s"},
      {"PackedVarintTooLong",
       ExampleOf(
           MapEntry("x", Int64List(LengthDelimitedField(1, std::string(10, '\x80') + "\x01")))),
       "Feature 'x': malformed Feature: varint longer than 10 bytes"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    tensorflow::Example example;
    EXPECT_FALSE(example.ParseFromString(c.record)) << "protobuf accepts it";
    const Result<Element> out = parser.ParseSingle(c.record);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr(c.error));
  }
}

TEST(ExampleParserTest, EveryTruncationFailsCleanly) {
  const ExampleParser parser =
      MakeParser({{.key = "label"},
                  {.key = "weight", .dtype = DType::kFloat32, .shape = Shape{2}},
                  {.key = "text", .dtype = DType::kString}});
  const std::string record = BatchRecords()[2];
  // A strict prefix cuts the one Features field short, or (when empty) lacks
  // the features.
  for (size_t size = 0; size < record.size(); ++size) {
    const Result<Element> out = parser.ParseSingle(std::string_view(record.data(), size));
    ASSERT_FALSE(out.ok()) << size;
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  }
}

// As TensorFlow's parser, unrequested features are skipped unread, so damage
// inside one goes unnoticed.
TEST(ExampleParserTest, DamageInsideUnrequestedFeaturesIsNotSeen) {
  const std::string record =
      ExampleOf(MapEntry("x", Int64Feature({1}).SerializeAsString()) +
                MapEntry("junk", Int64List(LengthDelimitedField(1, "\xff"))));
  tensorflow::Example example;
  EXPECT_FALSE(example.ParseFromString(record));
  const Element out = Ok(MakeParser({{.key = "x"}}).ParseSingle(record));
  ExpectTensor(out[0], Tensor::Scalar<int64_t>(1));
}

}  // namespace
}  // namespace sluice

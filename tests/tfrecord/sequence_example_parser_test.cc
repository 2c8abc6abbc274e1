#include "sluice/tfrecord/sequence_example_parser.h"

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

using Steps = std::vector<tensorflow::Feature>;

// A serialized SequenceExample with these context features and feature
// lists, entries in this order (duplicates kept).
std::string SequenceRecord(const std::vector<std::pair<std::string, tensorflow::Feature>>& context,
                           const std::vector<std::pair<std::string, Steps>>& lists) {
  std::string context_map;
  for (const auto& [key, feature] : context)
    context_map += MapEntry(key, feature.SerializeAsString());
  std::string lists_map;
  for (const auto& [key, steps] : lists) {
    std::string feature_list;
    for (const tensorflow::Feature& step : steps) {
      feature_list += LengthDelimitedField(1, step.SerializeAsString());
    }
    lists_map += MapEntry(key, feature_list);
  }
  return LengthDelimitedField(1, context_map) + LengthDelimitedField(2, lists_map);
}

SequenceExampleParser MakeParser(std::vector<FeatureConfig> context,
                                 std::vector<SequenceFeatureConfig> sequence) {
  Result<SequenceExampleSchema> schema =
      SequenceExampleSchema::Make(std::move(context), std::move(sequence));
  EXPECT_TRUE(schema.ok()) << schema.status();
  return SequenceExampleParser(std::move(schema).value());
}

void ExpectTensor(const Tensor& actual, const Tensor& expected) {
  EXPECT_TRUE(actual.Equals(expected))
      << actual.DebugString() << "\nexpected " << expected.DebugString();
}

// Context "id"; a fixed-length float pair per step "xy"; ragged tokens per
// step "tokens" (required).
SequenceExampleParser TokensParser() {
  return MakeParser({{.key = "id"}}, {{.key = "xy", .dtype = DType::kFloat32, .shape = Shape{2}},
                                      {.key = "tokens",
                                       .dtype = DType::kString,
                                       .layout = StepLayout::kVarLen,
                                       .required = true}});
}

std::vector<std::string> TokensRecords() {
  return {SequenceRecord(
              {{"id", Int64Feature({1})}},
              {{"xy", {FloatFeature({1, 2}), FloatFeature({3, 4})}},
               {"tokens", {BytesFeature({"a", "b"}), tensorflow::Feature(), BytesFeature({"c"})}}}),
          SequenceRecord({{"id", Int64Feature({2})}}, {{"tokens", {}}}),
          SequenceRecord({{"id", Int64Feature({3})}},
                         {{"tokens", {BytesFeature({"d"})}}, {"xy", {FloatFeature({5, 6})}}})};
}

TEST(SequenceExampleParserTest, Single) {
  const SequenceExampleParser parser = TokensParser();
  EXPECT_EQ(parser.element_spec().ToString(),
            "(id: int64[], xy: float32[?, 2], tokens: string[?], tokens/row_lengths: int64[?])");
  const Element out = Ok(parser.ParseSingle(TokensRecords()[0]));
  ASSERT_TRUE(parser.element_spec().Check(out).ok()) << parser.element_spec().Check(out);
  ExpectTensor(out[0], Tensor::Scalar<int64_t>(1));
  ExpectTensor(out[1], Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2}));
  ExpectTensor(out[2], Tensor::FromVector<std::string>({"a", "b", "c"}));
  ExpectTensor(out[3], Tensor::FromVector<int64_t>({2, 0, 1}));

  const Element second = Ok(parser.ParseSingle(TokensRecords()[1]));  // no "xy": zero steps
  EXPECT_EQ(second[1].shape(), (Shape{0, 2}));
  EXPECT_EQ(second[2].shape(), Shape{0});
}

TEST(SequenceExampleParserTest, Batch) {
  const SequenceExampleParser parser = TokensParser();
  EXPECT_EQ(parser.batched_element_spec().ToString(),
            "(id: int64[?], xy: float32[?, ?, 2], xy/lengths: int64[?], tokens: string[?], "
            "tokens/row_lengths: int64[?], tokens/lengths: int64[?])");
  const std::vector<std::string> records = TokensRecords();
  const Element out =
      Ok(parser.ParseBatch(std::vector<std::string_view>(records.begin(), records.end())));
  ASSERT_TRUE(parser.batched_element_spec().Check(out).ok())
      << parser.batched_element_spec().Check(out);
  ExpectTensor(out[0], Tensor::FromVector<int64_t>({1, 2, 3}));
  ExpectTensor(out[1],
               Tensor::FromVector<float>({1, 2, 3, 4, 0, 0, 0, 0, 5, 6, 0, 0}, Shape{3, 2, 2}));
  ExpectTensor(out[2], Tensor::FromVector<int64_t>({2, 0, 1}));
  ExpectTensor(out[3], Tensor::FromVector<std::string>({"a", "b", "c", "d"}));
  ExpectTensor(out[4], Tensor::FromVector<int64_t>({2, 0, 1, 1}));
  ExpectTensor(out[5], Tensor::FromVector<int64_t>({3, 0, 1}));
}

TEST(SequenceExampleParserTest, ProtobufMergeSemantics) {
  const SequenceExampleParser parser = MakeParser({{.key = "c", .layout = FeatureLayout::kVarLen}},
                                                  {{.key = "s", .layout = StepLayout::kVarLen}});
  // Duplicate keys: the last wins. Concatenated records merge.
  const std::string record =
      SequenceRecord({{"c", Int64Feature({1})}},
                     {{"s", {Int64Feature({1})}}, {"s", {Int64Feature({2, 3})}}}) +
      SequenceRecord({{"c", Int64Feature({4, 5})}}, {});
  const Element out = Ok(parser.ParseSingle(record));
  ExpectTensor(out[0], Tensor::FromVector<int64_t>({4, 5}));
  ExpectTensor(out[1], Tensor::FromVector<int64_t>({2, 3}));
  ExpectTensor(out[2], Tensor::FromVector<int64_t>({2}));

  // A feature list entry whose value field repeats: the steps concatenate.
  const std::string split_entry = LengthDelimitedField(
      2, LengthDelimitedField(
             1, LengthDelimitedField(1, "s") +
                    LengthDelimitedField(
                        2, LengthDelimitedField(1, Int64Feature({7}).SerializeAsString())) +
                    LengthDelimitedField(
                        2, LengthDelimitedField(1, Int64Feature({8}).SerializeAsString()))));
  const Element merged = Ok(parser.ParseSingle(split_entry));
  ExpectTensor(merged[1], Tensor::FromVector<int64_t>({7, 8}));
  ExpectTensor(merged[2], Tensor::FromVector<int64_t>({1, 1}));
}

TEST(SequenceExampleParserTest, Errors) {
  const std::vector<std::string> records = TokensRecords();
  const SequenceExampleParser parser = TokensParser();
  const struct {
    std::string name;
    std::string record;
    std::string error;
  } cases[] = {
      {"RequiredListMissing", SequenceRecord({{"id", Int64Feature({1})}}, {}),
       "Feature list 'tokens' (bytes) is required but missing in record 0"},
      {"StepOfWrongKind",
       SequenceRecord({{"id", Int64Feature({1})}},
                      {{"tokens", {BytesFeature({"a"}), Int64Feature({1})}}}),
       "Feature list 'tokens' in record 0, step 1: expected bytes, found int64"},
      {"StepOfWrongCount",
       SequenceRecord({{"id", Int64Feature({1})}},
                      {{"tokens", {}}, {"xy", {FloatFeature({1, 2}), FloatFeature({3})}}}),
       "Feature list 'xy' in record 0, step 1: expected 2 float values per step (shape [2]), found "
       "1"},
      {"EmptyStepInFixedLen",
       SequenceRecord({{"id", Int64Feature({1})}},
                      {{"tokens", {}}, {"xy", {tensorflow::Feature()}}}),
       "Feature list 'xy' in record 0, step 0: expected 2 float values per step (shape [2]), found "
       "0"},
      {"ContextMissing", SequenceRecord({}, {{"tokens", {}}}),
       "Feature 'id' (int64) is required but missing in record 0"},
      {"Truncated", records[0].substr(0, records[0].size() - 1),
       "Invalid SequenceExample in record 0: malformed SequenceExample: length-delimited field "
       "overruns"},
      {"MalformedStep",
       SequenceRecord({{"id", Int64Feature({1})}}, {}) +
           LengthDelimitedField(
               2, MapEntry("tokens", LengthDelimitedField(1, std::string("\x0a\x05", 2)))),
       "Feature list 'tokens' in record 0, step 0: malformed Feature: length-delimited field "
       "overruns"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string_view record = c.record;
    const Result<Element> out = parser.ParseBatch({&record, 1});
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr(c.error));
  }
}

TEST(SequenceExampleParserTest, EmptyBatch) {
  const Element out = Ok(TokensParser().ParseBatch({}));
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[1].shape(), (Shape{0, 0, 2}));
  EXPECT_EQ(out[5].shape(), Shape{0});
}

}  // namespace
}  // namespace sluice

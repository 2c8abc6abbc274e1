// SequenceExampleParser against protobuf's own parser on random schemas and
// random SequenceExamples in every valid encoding, then on damaged copies.
#include <google/protobuf/stubs/logging.h>

#include "random_features.h"
#include "reference_parse.h"
#include "sluice/tfrecord/sequence_example_parser.h"

namespace sluice {
namespace {

using testing::FeatureContent;
using testing::RandomFeatures;

constexpr int kIterations = 3000;

const std::vector<std::string> kKeys = {"c0", "c1", "s0", "s1", "s2", "x", "x/lengths", "len"};

// A random subset of kKeys, split between context and sequence features.
SequenceExampleSchema RandomSchema(RandomFeatures& random) {
  std::vector<FeatureConfig> context;
  std::vector<SequenceFeatureConfig> sequence;
  for (const std::string& key : kKeys) {
    if (random.Chance(0.4)) continue;
    const DType dtype = random.Pick(std::vector{DType::kInt64, DType::kFloat32, DType::kString});
    if (random.Chance(0.3)) {
      FeatureConfig config{
          .key = key, .dtype = dtype, .layout = static_cast<FeatureLayout>(random.Uniform(0, 2))};
      if (config.layout == FeatureLayout::kFixedLen && random.Chance(0.5)) {
        config.default_value = Tensor::Allocate(dtype, Shape{});
      }
      context.push_back(std::move(config));
    } else {
      SequenceFeatureConfig config{.key = key,
                                   .dtype = dtype,
                                   .layout = static_cast<StepLayout>(random.Uniform(0, 1)),
                                   .required = random.Chance(0.2)};
      if (config.layout == StepLayout::kFixedLen) {
        config.shape = random.Pick(std::vector{Shape{}, Shape{2}, Shape{0}});
      }
      sequence.push_back(std::move(config));
    }
  }
  Result<SequenceExampleSchema> schema =
      SequenceExampleSchema::Make(std::move(context), std::move(sequence));
  if (!schema.ok()) return RandomSchema(random);  // "x" and "x/lengths" may clash
  return std::move(schema).value();
}

// The fields of a FeatureList payload: mostly steps of the right kind and
// count, with unknown fields mixed in.
std::vector<std::string> StepFields(RandomFeatures& random, const SequenceFeatureConfig& config) {
  std::vector<std::string> fields;
  for (int64_t steps = random.Uniform(0, 3); steps > 0; --steps) {
    FeatureContent content{FeatureKindOf(config.dtype), config.layout == StepLayout::kFixedLen
                                                            ? config.shape.NumElements()
                                                            : random.Uniform(0, 3)};
    if (random.Chance(0.05)) content = {random.RandomKind(), random.Uniform(0, 3)};
    std::string feature;
    for (const std::string& field : random.FeatureFields(content)) feature += field;
    fields.push_back(testing::LengthDelimitedField(1, feature));
    if (random.Chance(0.05)) fields.push_back(random.UnknownField());
  }
  return fields;
}

std::string RandomRecord(RandomFeatures& random, const SequenceExampleSchema& schema) {
  std::vector<std::string> context;
  std::vector<std::string> lists;
  for (const FeatureConfig& config : schema.context().features()) {
    if (!random.Chance(0.85)) continue;
    const int64_t count = config.layout == FeatureLayout::kFixedLen ? config.shape.NumElements()
                                                                    : random.Uniform(0, 3);
    context.push_back(
        random.MapEntry(config.key, random.FeatureFields({FeatureKindOf(config.dtype), count})));
  }
  for (const SequenceFeatureConfig& config : schema.sequence_features()) {
    if (random.Chance(0.85))
      lists.push_back(random.MapEntry(config.key, StepFields(random, config)));
  }
  if (random.Chance(0.3)) {
    const SequenceFeatureConfig unrequested{.key = "unrequested", .layout = StepLayout::kVarLen};
    lists.push_back(random.MapEntry(unrequested.key, StepFields(random, unrequested)));
  }
  std::string record = random.SplitMap(1, context);
  return random.Chance(0.5) ? record + random.SplitMap(2, lists)
                            : random.SplitMap(2, lists) + record;
}

TEST(SequenceExampleParserDifferentialTest, MatchesProtobufOnRandomRecords) {
  RandomFeatures random(/*seed=*/314159);
  int ok_batches = 0;
  for (int i = 0; i < kIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    const SequenceExampleSchema schema = RandomSchema(random);
    const SequenceExampleParser parser(schema);
    std::vector<std::string> records;
    for (int64_t n = random.Uniform(1, 4); n > 0; --n)
      records.push_back(RandomRecord(random, schema));
    const std::vector<std::string_view> views(records.begin(), records.end());
    const Result<Element> expected = testing::ReferenceParse(schema, records, /*batched=*/true);
    ASSERT_NO_FATAL_FAILURE(testing::ExpectSameResult(parser.ParseBatch(views), expected));
    ok_batches += expected.ok();
    ASSERT_NO_FATAL_FAILURE(testing::ExpectSameResult(
        parser.ParseSingle(records[0]), testing::ReferenceParse(schema, {records[0]}, false)));
  }
  EXPECT_GT(ok_batches, kIterations / 5);
  EXPECT_LT(ok_batches, kIterations * 4 / 5);
}

TEST(SequenceExampleParserDifferentialTest, DamagedRecords) {
  const google::protobuf::LogSilencer silence_invalid_utf8_complaints;
  RandomFeatures random(/*seed=*/2718);
  int compared = 0;
  for (int i = 0; i < kIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    const SequenceExampleSchema schema = RandomSchema(random);
    std::string record = RandomRecord(random, schema);
    if (record.empty()) continue;
    const auto at = static_cast<size_t>(random.Uniform(0, static_cast<int64_t>(record.size()) - 1));
    if (random.Chance(0.8)) {
      record[at] = static_cast<char>(random.Uniform(0, 255));
    } else {
      record.resize(at);
    }
    const Result<Element> actual = SequenceExampleParser(schema).ParseSingle(record);
    tensorflow::SequenceExample example;
    if (example.ParseFromString(record)) {
      ++compared;
      ASSERT_NO_FATAL_FAILURE(
          testing::ExpectSameResult(actual, testing::ReferenceParse(schema, {record}, false)));
    } else if (!actual.ok()) {
      EXPECT_EQ(actual.status().code(), StatusCode::kInvalidArgument);
    }
  }
  EXPECT_GT(compared, kIterations / 40);
}

}  // namespace
}  // namespace sluice

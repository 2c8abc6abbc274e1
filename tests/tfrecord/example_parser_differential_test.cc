// ExampleParser against protobuf's own parser (reference_parse.h) on random
// schemas and random Examples in every valid encoding (random_features.h),
// then on randomly damaged copies of them.
#include <google/protobuf/stubs/logging.h>

#include "random_features.h"
#include "reference_parse.h"
#include "sluice/tfrecord/example_parser.h"

namespace sluice {
namespace {

using testing::ExpectSameResult;
using testing::FeatureContent;
using testing::RandomFeatures;
using testing::ReferenceParse;

constexpr int kIterations = 4000;
constexpr int kDamagedIterations = 10000;

// Requested and unrequested keys, including ones that look alike.
const std::vector<std::string> kKeys = {"f0",
                                        "f1",
                                        "f2",
                                        "f3",
                                        "label",
                                        "image/encoded",
                                        "0",
                                        "x",
                                        "xx",
                                        "\xc3\xa9t\xc3\xa9",
                                        std::string(40, 'k')};

const std::vector<Shape> kShapes = {Shape{}, Shape{1}, Shape{3}, Shape{2, 2}, Shape{0}};

Tensor RandomScalar(RandomFeatures& random, DType dtype) {
  return VisitFeatureDType(dtype, [&](auto zero) {
    using T = decltype(zero);
    if constexpr (std::is_same_v<T, TString>) {
      return Tensor::Scalar(random.RandomBytes());
    } else {
      return Tensor::Scalar(static_cast<T>(random.Uniform(-100, 100)));
    }
  });
}

FeatureConfig RandomConfig(RandomFeatures& random, std::string key) {
  FeatureConfig config{
      .key = std::move(key),
      .dtype = random.Pick(std::vector{DType::kInt64, DType::kFloat32, DType::kString}),
      .layout = static_cast<FeatureLayout>(random.Uniform(0, 2))};
  if (config.layout == FeatureLayout::kFixedLen) {
    config.shape = random.Pick(kShapes);
    if (random.Chance(0.4)) config.default_value = RandomScalar(random, config.dtype);
  } else if (config.layout == FeatureLayout::kVarLenPadded && random.Chance(0.5)) {
    config.default_value = RandomScalar(random, config.dtype);
  }
  return config;
}

// A schema over a random subset of `keys`, in random order.
ExampleSchema RandomSchema(RandomFeatures& random, std::vector<std::string> keys) {
  std::vector<FeatureConfig> features;
  while (!keys.empty() && (features.empty() || random.Chance(0.75))) {
    const auto i = static_cast<size_t>(random.Uniform(0, static_cast<int64_t>(keys.size()) - 1));
    features.push_back(RandomConfig(random, keys[i]));
    keys.erase(keys.begin() + static_cast<ptrdiff_t>(i));
  }
  Result<ExampleSchema> schema = ExampleSchema::Make(std::move(features));
  EXPECT_TRUE(schema.ok()) << schema.status();
  return std::move(schema).value();
}

// What a record holds for one requested feature: mostly what the schema
// asks for, sometimes anything.
FeatureContent ContentFor(RandomFeatures& random, const FeatureConfig& config) {
  if (random.Chance(0.15)) return {random.RandomKind(), random.Uniform(0, 4)};
  const int64_t count =
      config.layout == FeatureLayout::kFixedLen ? config.shape.NumElements() : random.Uniform(0, 4);
  return {FeatureKindOf(config.dtype), count};
}

// A serialized Example: most requested features, some unrequested keys,
// now and then a duplicate key, in random order.
std::string RandomRecord(RandomFeatures& random, const ExampleSchema& schema,
                         const std::vector<std::string>& keys) {
  std::vector<std::string> entries;
  for (const FeatureConfig& config : schema.features()) {
    if (random.Chance(0.9)) {
      entries.push_back(
          random.MapEntry(config.key, random.FeatureFields(ContentFor(random, config))));
    }
  }
  for (const std::string& key : keys) {
    if (random.Chance(0.2)) {
      entries.push_back(
          random.MapEntry(key, random.FeatureFields({random.RandomKind(), random.Uniform(0, 3)})));
    }
  }
  std::shuffle(entries.begin(), entries.end(),
               std::mt19937(static_cast<uint32_t>(random.Uniform(0, 1 << 30))));
  return random.SplitMap(/*features=*/1, entries);
}

TEST(ExampleParserDifferentialTest, MatchesProtobufOnRandomExamples) {
  RandomFeatures random(/*seed=*/20240611);
  int ok_batches = 0;
  for (int i = 0; i < kIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    const ExampleSchema schema = RandomSchema(random, kKeys);
    const ExampleParser parser(schema);
    std::vector<std::string> records;
    for (int64_t n = random.Uniform(1, 4); n > 0; --n)
      records.push_back(RandomRecord(random, schema, kKeys));
    const std::vector<std::string_view> views(records.begin(), records.end());

    const Result<Element> expected = ReferenceParse(schema, records, /*batched=*/true);
    ASSERT_NO_FATAL_FAILURE(ExpectSameResult(parser.ParseBatch(views), expected));
    // From a string tensor: bytes features as views, kept alive by the outputs.
    Result<Element> viewed = parser.Parse(Tensor::FromVector(records));
    ASSERT_NO_FATAL_FAILURE(ExpectSameResult(viewed, expected));
    ok_batches += expected.ok();
    ASSERT_NO_FATAL_FAILURE(ExpectSameResult(parser.ParseSingle(records[0]),
                                             ReferenceParse(schema, {records[0]}, false)));
    if (HasFailure()) return;
  }
  // Both outcomes are well represented.
  EXPECT_GT(ok_batches, kIterations / 5);
  EXPECT_LT(ok_batches, kIterations * 4 / 5);
}

// A schema of many features: the key index under load.
TEST(ExampleParserDifferentialTest, ManyFeatures) {
  RandomFeatures random(/*seed=*/7);
  std::vector<std::string> keys;
  for (int k = 0; k < 300; ++k) keys.push_back("feature_" + std::to_string(k));
  for (int i = 0; i < 50; ++i) {
    const ExampleSchema schema = RandomSchema(random, keys);
    const std::string record = RandomRecord(random, schema, keys);
    ExpectSameResult(ExampleParser(schema).ParseSingle(record),
                     ReferenceParse(schema, {record}, false));
  }
}

// Randomly damaged records: whenever protobuf still parses one, the results
// agree; otherwise the parser fails cleanly or, when the damage lies inside
// an unrequested feature, succeeds. A record it calls malformed, protobuf
// rejects too.
TEST(ExampleParserDifferentialTest, DamagedRecords) {
  const google::protobuf::LogSilencer silence_invalid_utf8_complaints;
  RandomFeatures random(/*seed=*/99);
  int compared = 0;
  for (int i = 0; i < kDamagedIterations; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    const ExampleSchema schema = RandomSchema(random, kKeys);
    std::string record = RandomRecord(random, schema, kKeys);
    for (int64_t damage = random.Chance(0.7) ? 1 : 2; damage > 0 && !record.empty(); --damage) {
      const auto at =
          static_cast<size_t>(random.Uniform(0, static_cast<int64_t>(record.size()) - 1));
      switch (random.Uniform(0, 3)) {
        case 0:
          record[at] = static_cast<char>(random.Uniform(0, 255));
          break;
        case 1:
          record.resize(at);
          break;
        case 2:
          record.erase(at, 1);
          break;
        default:
          record.insert(at, 1, static_cast<char>(random.Uniform(0, 255)));
          break;
      }
    }
    const Result<Element> actual = ExampleParser(schema).ParseSingle(record);
    tensorflow::Example example;
    if (example.ParseFromString(record)) {
      ++compared;
      ASSERT_NO_FATAL_FAILURE(ExpectSameResult(actual, ReferenceParse(schema, {record}, false)));
    } else if (!actual.ok()) {
      EXPECT_EQ(actual.status().code(), StatusCode::kInvalidArgument);
    }
  }
  EXPECT_GT(compared, kDamagedIterations / 40);
}

}  // namespace
}  // namespace sluice

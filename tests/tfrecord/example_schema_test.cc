#include "sluice/tfrecord/example_schema.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(ExampleSchemaTest, SpecsOfEveryLayout) {
  Result<ExampleSchema> schema = ExampleSchema::Make({
      {.key = "label"},
      {.key = "image", .dtype = DType::kFloat32, .shape = Shape{2, 3}},
      {.key = "ids", .layout = FeatureLayout::kVarLen},
      {.key = "words", .dtype = DType::kString, .layout = FeatureLayout::kVarLenPadded},
  });
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->element_spec().ToString(),
            "(label: int64[], image: float32[2, 3], ids: int64[?], words: string[?])");
  EXPECT_EQ(schema->batched_element_spec().ToString(),
            "(label: int64[?], image: float32[?, 2, 3], ids: int64[?], ids/row_lengths: int64[?], "
            "words: string[?, ?])");
}

TEST(ExampleSchemaTest, NormalizesDefaults) {
  Result<ExampleSchema> schema = ExampleSchema::Make({
      {.key = "broadcast", .shape = Shape{3}, .default_value = Tensor::Scalar<int64_t>(7)},
      {.key = "full",
       .dtype = DType::kString,
       .shape = Shape{2},
       .default_value = Tensor::FromVector<std::string>({"a", "b"})},
      {.key = "required", .dtype = DType::kFloat32},
      {.key = "padded", .dtype = DType::kString, .layout = FeatureLayout::kVarLenPadded},
      {.key = "padded_by",
       .layout = FeatureLayout::kVarLenPadded,
       .default_value = Tensor::Scalar<int64_t>(-1)},
  });
  ASSERT_TRUE(schema.ok()) << schema.status();
  const std::vector<FeatureConfig>& features = schema->features();
  EXPECT_TRUE(features[0].default_value.Equals(Tensor::FromVector<int64_t>({7, 7, 7})));
  EXPECT_TRUE(features[1].default_value.Equals(Tensor::FromVector<std::string>({"a", "b"})));
  EXPECT_FALSE(features[2].default_value.valid());
  EXPECT_TRUE(features[3].default_value.Equals(Tensor::Scalar("")));
  EXPECT_TRUE(features[4].default_value.Equals(Tensor::Scalar<int64_t>(-1)));
}

TEST(ExampleSchemaTest, InvalidConfigs) {
  const struct {
    std::string name;
    std::vector<FeatureConfig> features;
    std::string error;
  } cases[] = {
      {"EmptyKey", {{.key = "a"}, {.key = ""}}, "Feature 1 has an empty key"},
      {"BadDType",
       {{.key = "a", .dtype = DType::kFloat64}},
       "Feature 'a' has dtype float64; a feature holds int64, float32 or string"},
      {"DuplicateKey",
       {{.key = "a"}, {.key = "b"}, {.key = "a", .layout = FeatureLayout::kVarLen}},
       "Feature key 'a' is used twice (features 0 and 2)"},
      {"DefaultOfWrongDType",
       {{.key = "a", .default_value = Tensor::Scalar(1.0f)}},
       "Feature 'a': default value has dtype float32, expected int64"},
      {"DefaultOfWrongShape",
       {{.key = "a",
         .shape = Shape{2, 2},
         .default_value = Tensor::FromVector<int64_t>({1, 2, 3})}},
       "Feature 'a': default value has shape [3], expected [2, 2] or a scalar"},
      {"VarLenWithDefault",
       {{.key = "a",
         .layout = FeatureLayout::kVarLen,
         .default_value = Tensor::Scalar<int64_t>(0)}},
       "Feature 'a' is kVarLen and takes no default value"},
      {"VarLenWithShape",
       {{.key = "a", .layout = FeatureLayout::kVarLen, .shape = Shape{2}}},
       "Feature 'a' has shape [2], but only a kFixedLen feature takes one"},
      {"PaddingNotAScalar",
       {{.key = "a",
         .layout = FeatureLayout::kVarLenPadded,
         .default_value = Tensor::FromVector<int64_t>({1, 2})}},
       "Feature 'a': padding value is int64[2], expected a int64 scalar"},
      {"NoRoomForTheBatchDim",
       {{.key = "a", .shape = Shape{1, 1, 1, 1, 1, 1, 1, 1}}},
       "Feature 'a' has shape [1, 1, 1, 1, 1, 1, 1, 1] of rank 8; at most 7 leaves room for the "
       "batch dimension"},
      {"NegativeDim",
       {{.key = "a", .shape = Shape{2, -1}}},
       "Feature 'a' has shape [2, -1]: dimension 1 is -1; a kFixedLen feature needs a fully defined "
       "shape (dims >= 0)"},
      {"ShapeBytesOverflow",
       {{.key = "a", .shape = Shape{int64_t{1} << 61}}},
       "Feature 'a': shape [2305843009213693952] of int64 takes more bytes than fit in int64"},
      {"ComponentNameClash",
       {{.key = "a", .layout = FeatureLayout::kVarLen}, {.key = "a/row_lengths"}},
       "Output component 'a/row_lengths' would be produced twice"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Result<ExampleSchema> schema = ExampleSchema::Make(c.features);
    ASSERT_FALSE(schema.ok());
    EXPECT_EQ(schema.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(schema.status().message().substr(0, c.error.size()), c.error);
  }
}

// A scalar default broadcast to a shape larger than the host is
// ResourceExhausted naming the feature, not an abort.
TEST(ExampleSchemaTest, HugeDefaultIsResourceExhausted) {
  Result<ExampleSchema> schema = ExampleSchema::Make(
      {{.key = "a", .shape = Shape{int64_t{1} << 40}, .default_value = Tensor::Scalar<int64_t>(0)}});
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(schema.status().code(), StatusCode::kResourceExhausted) << schema.status();
  EXPECT_NE(schema.status().message().find("Feature 'a': default value"), std::string::npos) << schema.status();
}

}  // namespace
}  // namespace sluice

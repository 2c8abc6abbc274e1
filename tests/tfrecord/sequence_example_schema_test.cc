#include "sluice/tfrecord/sequence_example_schema.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(SequenceExampleSchemaTest, Specs) {
  Result<SequenceExampleSchema> schema = SequenceExampleSchema::Make(
      {{.key = "id"}, {.key = "tags", .dtype = DType::kString, .layout = FeatureLayout::kVarLen}},
      {{.key = "frames", .dtype = DType::kFloat32, .shape = Shape{3}},
       {.key = "words", .dtype = DType::kString, .layout = StepLayout::kVarLen}});
  ASSERT_TRUE(schema.ok()) << schema.status();
  EXPECT_EQ(schema->element_spec().ToString(),
            "(id: int64[], tags: string[?], frames: float32[?, 3], words: string[?], "
            "words/row_lengths: int64[?])");
  EXPECT_EQ(schema->batched_element_spec().ToString(),
            "(id: int64[?], tags: string[?], tags/row_lengths: int64[?], frames: float32[?, ?, 3], "
            "frames/lengths: int64[?], words: string[?], words/row_lengths: int64[?], "
            "words/lengths: int64[?])");
  EXPECT_EQ(schema->context().features().size(), 2u);
  EXPECT_EQ(schema->sequence_features().size(), 2u);
}

TEST(SequenceExampleSchemaTest, InvalidConfigs) {
  const struct {
    std::string name;
    std::vector<FeatureConfig> context;
    std::vector<SequenceFeatureConfig> sequence;
    std::string error;
  } cases[] = {
      {"ContextIsValidatedToo", {{.key = ""}}, {}, "Feature 0 has an empty key"},
      {"EmptyKey", {}, {{.key = "s"}, {.key = ""}}, "Sequence feature 1 has an empty key"},
      {"BadDType",
       {},
       {{.key = "s", .dtype = DType::kBool}},
       "Sequence feature 's' has dtype bool; a feature holds int64, float32 or string"},
      {"DuplicateKey",
       {},
       {{.key = "s"}, {.key = "s", .layout = StepLayout::kVarLen}},
       "Sequence feature key 's' is used twice (sequence features 0 and 1)"},
      {"VarLenWithShape",
       {},
       {{.key = "s", .layout = StepLayout::kVarLen, .shape = Shape{2}}},
       "Sequence feature 's' has shape [2], but only a kFixedLen feature takes one"},
      {"NoRoomForBatchAndSteps",
       {},
       {{.key = "s", .shape = Shape{1, 1, 1, 1, 1, 1, 1}}},
       "Sequence feature 's' has shape [1, 1, 1, 1, 1, 1, 1] of rank 7; at most 6 leaves room"},
      {"NegativeDim",
       {},
       {{.key = "s", .shape = Shape{-1}}},
       "Sequence feature 's' has shape [-1]: dimension 0 is -1; a kFixedLen feature needs a fully defined shape"},
      {"ShapeBytesOverflow",
       {},
       {{.key = "s", .dtype = DType::kFloat32, .shape = Shape{int64_t{1} << 62, 2}}},
       "Sequence feature 's': shape [4611686018427387904, 2] has more elements than fit in int64"},
      {"ContextAndSequenceShareAKey",
       {{.key = "x"}},
       {{.key = "x"}},
       "Output component 'x' would be produced twice"},
      {"LengthsClash", {{.key = "s/lengths"}}, {{.key = "s"}}, "Output component 's/lengths'"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Result<SequenceExampleSchema> schema = SequenceExampleSchema::Make(c.context, c.sequence);
    ASSERT_FALSE(schema.ok());
    EXPECT_EQ(schema.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(schema.status().message().substr(0, c.error.size()), c.error);
  }
}

}  // namespace
}  // namespace sluice

#include "sluice/tfrecord/feature_values.h"

#include <gmock/gmock.h>

#include "example_test_util.h"

namespace sluice {
namespace {

using testing::Fixed32Field;
using testing::LengthDelimitedField;
using testing::VarintField;

// REQUIRES: `feature` outlives the result, which aliases it.
FeatureValues Resolve(const std::string& feature) {
  FeatureValues values;
  const Status status = ResolveFeature({.bytes = feature, .present = true}, &values);
  EXPECT_TRUE(status.ok()) << status;
  return values;
}

template <typename T>
std::vector<T> Copy(const FeatureValues& values) {
  std::vector<T> out(static_cast<size_t>(values.count));
  const Status status = CopyValues(values, out.data());
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

TEST(FeatureValuesTest, KindsAndNames) {
  EXPECT_EQ(FeatureKindName(FeatureKind::kNone), "none");
  EXPECT_EQ(FeatureKindName(FeatureKind::kBytes), "bytes");
  EXPECT_EQ(FeatureKindOf(DType::kString), FeatureKind::kBytes);
  EXPECT_EQ(FeatureKindOf(DType::kFloat32), FeatureKind::kFloat);
  EXPECT_EQ(FeatureKindOf(DType::kInt64), FeatureKind::kInt64);
  EXPECT_EQ(FeatureKindOf(DType::kInt32), FeatureKind::kNone);
}

TEST(FeatureValuesTest, EmptyFeatureHasNoKind) {
  const FeatureValues values = Resolve("");
  EXPECT_EQ(values.kind, FeatureKind::kNone);
  EXPECT_EQ(values.count, 0);
  const std::string unknown_only = VarintField(7, 1);
  EXPECT_EQ(Resolve(unknown_only).kind, FeatureKind::kNone);
}

TEST(FeatureValuesTest, EachKindAsProtobufWritesIt) {
  const std::string int64_feature = testing::Int64Feature({1, -1, 300}).SerializeAsString();
  const FeatureValues ints = Resolve(int64_feature);
  EXPECT_EQ(ints.kind, FeatureKind::kInt64);
  EXPECT_EQ(Copy<int64_t>(ints), (std::vector<int64_t>{1, -1, 300}));
  const std::string float_feature = testing::FloatFeature({0.25f, -3}).SerializeAsString();
  const FeatureValues floats = Resolve(float_feature);
  EXPECT_EQ(floats.kind, FeatureKind::kFloat);
  EXPECT_EQ(Copy<float>(floats), (std::vector<float>{0.25f, -3}));
  const std::string bytes_feature = testing::BytesFeature({"ab", ""}).SerializeAsString();
  const FeatureValues bytes = Resolve(bytes_feature);
  EXPECT_EQ(bytes.kind, FeatureKind::kBytes);
  const std::vector<TString> copied = Copy<TString>(bytes);
  ASSERT_EQ(copied.size(), 2u);
  EXPECT_EQ(copied[0], "ab");
  EXPECT_FALSE(copied[0].is_view());
  EXPECT_EQ(copied[1], "");
  // Views point into the serialized feature itself.
  std::vector<TString> viewed(2);
  ASSERT_TRUE(ViewValues(bytes, viewed.data()).ok());
  EXPECT_EQ(viewed[0], "ab");
  EXPECT_TRUE(viewed[0].is_view());
  EXPECT_GE(viewed[0].data(), bytes_feature.data());
  EXPECT_LT(viewed[0].data(), bytes_feature.data() + bytes_feature.size());
}

TEST(FeatureValuesTest, UnpackedChunkedAndMergedLists) {
  const std::string floats =
      LengthDelimitedField(2, Fixed32Field(1, 1) + LengthDelimitedField(1, std::string(8, '\0')) +
                                  VarintField(9, 1) + Fixed32Field(1, 2)) +
      LengthDelimitedField(2, Fixed32Field(1, 3));
  EXPECT_EQ(Copy<float>(Resolve(floats)), (std::vector<float>{1, 0, 0, 2, 3}));
  // A later list of another kind replaces the earlier ones (oneof).
  const std::string replaced = LengthDelimitedField(3, VarintField(1, 5)) +
                               LengthDelimitedField(1, LengthDelimitedField(1, "x")) +
                               LengthDelimitedField(3, VarintField(1, 6) + VarintField(1, 7));
  const FeatureValues values = Resolve(replaced);
  EXPECT_EQ(values.kind, FeatureKind::kInt64);
  EXPECT_EQ(values.first_list, 2u);
  EXPECT_EQ(Copy<int64_t>(values), (std::vector<int64_t>{6, 7}));
}

TEST(FeatureValuesTest, WholeEntryMergesItsValueFields) {
  const std::string entry =
      LengthDelimitedField(2, testing::Int64Feature({1}).SerializeAsString()) +
      LengthDelimitedField(1, "key") +
      LengthDelimitedField(2, testing::Int64Feature({2, 3}).SerializeAsString());
  FeatureValues values;
  ASSERT_TRUE(ResolveFeature({.bytes = entry, .whole_entry = true, .present = true}, &values).ok());
  EXPECT_EQ(Copy<int64_t>(values), (std::vector<int64_t>{1, 2, 3}));
}

TEST(FeatureValuesTest, Malformed) {
  const struct {
    std::string feature;
    std::string error;
  } cases[] = {
      {LengthDelimitedField(2, LengthDelimitedField(1, "12345")),
       "malformed Feature: packed floats of 5 bytes, not a multiple of 4"},
      {LengthDelimitedField(3, LengthDelimitedField(1, "\x01\x80")),
       "malformed Feature: truncated varint in packed int64s"},
      {LengthDelimitedField(3, "\x08"), "malformed Feature: truncated varint"},
      {std::string("\x1a\x05"), "malformed Feature: length-delimited field overruns its message"},
  };
  for (const auto& c : cases) {
    FeatureValues values;
    const Status status = ResolveFeature({.bytes = c.feature, .present = true}, &values);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), c.error);
  }
}

}  // namespace
}  // namespace sluice

#include "sluice/tfrecord/feature_map_reader.h"

#include <gtest/gtest.h>

#include "example_test_util.h"

namespace sluice {
namespace {

using testing::LengthDelimitedField;
using testing::MapEntry;

TEST(FeatureKeyIndexTest, FindsEveryKeyAndNothingElse) {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back("key" + std::to_string(i));
  keys.push_back("");  // the empty key is a key like any other here
  const FeatureKeyIndex index(keys);
  EXPECT_EQ(index.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(index.Find(keys[i]), static_cast<int>(i));
  EXPECT_EQ(index.Find("key1000"), -1);
  EXPECT_EQ(index.Find("ke"), -1);
  EXPECT_EQ(FeatureKeyIndex({}).Find("a"), -1);
}

TEST(ReadFeatureMapTest, LastEntryWinsAndUnrequestedAreSkipped) {
  const FeatureKeyIndex index({"a", "b", "c"});
  const std::string map = MapEntry("a", "first") + MapEntry("zzz", "ignored") +
                          MapEntry("a", "second") +
                          LengthDelimitedField(1, LengthDelimitedField(1, "b")) +  // no value
                          testing::VarintField(5, 1);                              // unknown field
  FeatureSlice slices[3];
  ASSERT_TRUE(ReadFeatureMap(map, "Features", index, slices).ok());
  EXPECT_EQ(slices[0].bytes, "second");
  EXPECT_TRUE(slices[0].present);
  EXPECT_FALSE(slices[0].whole_entry);
  EXPECT_EQ(slices[1].bytes, "");
  EXPECT_TRUE(slices[1].present);
  EXPECT_FALSE(slices[2].present);
}

TEST(ReadFeatureMapTest, RepeatedValueFieldsKeepTheWholeEntry) {
  const FeatureKeyIndex index({"a"});
  const std::string entry =
      LengthDelimitedField(2, "v1") + LengthDelimitedField(1, "a") + LengthDelimitedField(2, "v2");
  const std::string map = LengthDelimitedField(1, entry);  // slices view into it
  FeatureSlice slice;
  ASSERT_TRUE(ReadFeatureMap(map, "Features", index, &slice).ok());
  EXPECT_TRUE(slice.whole_entry);
  EXPECT_EQ(slice.bytes, entry);
}

TEST(ReadFeatureMapTest, DamageOutsideValuesIsAnError) {
  const FeatureKeyIndex index({"a"});
  FeatureSlice slice;
  const Status status =
      ReadFeatureMap(LengthDelimitedField(1, "\x0a\x09"), "FeatureLists", index, &slice);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "malformed FeatureLists: length-delimited field overruns its message");
}

}  // namespace
}  // namespace sluice

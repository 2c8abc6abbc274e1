#include "sluice/ops/row_lengths.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Ints(const std::vector<int64_t>& values) { return Tensor::FromVector(values); }

// Two sentences of 3 and 0 words, then 1 word; the words have 1, 2, 3 and
// 4 pieces.
TEST(RowLengthsTest, MergedLengthsCountTheInnerValuesOfEachOuterRow) {
  Result<Tensor> merged = MergeRowLengths("test", Ints({3, 0, 1}), Ints({1, 2, 3, 4}), 10);
  ASSERT_TRUE(merged.ok()) << merged.status();
  EXPECT_TRUE(merged->Equals(Ints({6, 0, 4}))) << merged->ToJson();
  Result<Tensor> empty = MergeRowLengths("test", Ints({0, 0}), Ints({}), 0);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_TRUE(empty->Equals(Ints({0, 0})));
}

TEST(RowLengthsTest, LengthsThatDoNotDescribeTheValuesAreRefused) {
  EXPECT_TRUE(CheckRowLengths("test", Ints({2, 0, 1}), 3).ok());
  EXPECT_EQ(CheckRowLengths("test", Ints({2, 2}), 3).message(),
            "test: row 1 has length 2, but the rows before it hold 2 of the 3 values");
  EXPECT_EQ(CheckRowLengths("test", Ints({1}), 3).message(), "test: the row lengths add up to 1, but there are 3 values");
  EXPECT_EQ(CheckRowLengths("test", Ints({-1, 4}), 3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRowLengths("test", Ints({INT64_MAX, INT64_MAX}), 3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckRowLengths("test", Tensor::Scalar<int64_t>(3), 3).message(),
            "test: row lengths must be an int64 vector, got int64[]");
  // The outer lengths count inner rows, the inner ones values.
  EXPECT_EQ(MergeRowLengths("test", Ints({3}), Ints({1, 1}), 2).status().message(),
            "test: row 0 has length 3, but the rows before it hold 0 of the 2 values");
  EXPECT_EQ(MergeRowLengths("test", Ints({2}), Ints({1, 1}), 3).status().message(),
            "test: the row lengths add up to 2, but there are 3 values");
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/pad_or_truncate.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Ints(const std::vector<int64_t>& values) { return Tensor::FromVector(values); }

// tf.text's pad_model_inputs documentation example, row by row: lengths 7,
// 10 and 8 with max_seq_length 9.
TEST(PadOrTruncateTest, PadModelInputsDocumentationExample) {
  struct Case {
    std::vector<int64_t> row, want, mask;
  };
  const Case cases[] = {
      {{101, 1, 2, 102, 10, 20, 102}, {101, 1, 2, 102, 10, 20, 102, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 0, 0}},
      {{101, 3, 4, 102, 30, 40, 50, 60, 70, 80}, {101, 3, 4, 102, 30, 40, 50, 60, 70}, {1, 1, 1, 1, 1, 1, 1, 1, 1}},
      {{101, 5, 6, 7, 8, 9, 102, 70}, {101, 5, 6, 7, 8, 9, 102, 70, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 0}},
  };
  for (const Case& c : cases) {
    Result<PaddedValues> out = PadOrTruncate(Ints(c.row), 9, 0);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->values.Equals(Ints(c.want))) << out->values.ToJson();
    EXPECT_TRUE(out->mask.Equals(Ints(c.mask))) << out->mask.ToJson();
  }
}

// The same example as pad_model_inputs takes it: one ragged batch.
TEST(PadOrTruncateTest, PadModelInputsDocumentationExampleAsOneBatch) {
  const Tensor values = Ints({101, 1, 2, 102, 10, 20, 102, 101, 3, 4, 102, 30, 40, 50, 60, 70, 80,
                              101, 5, 6, 7, 8, 9, 102, 70});
  Result<PaddedValues> out = PadOrTruncateRows(values, Ints({7, 10, 8}), 9, 0);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->values.Equals(Tensor::FromVector<int64_t>({101, 1, 2, 102, 10, 20, 102, 0, 0,  //
                                                              101, 3, 4, 102, 30, 40, 50, 60, 70,  //
                                                              101, 5, 6, 7, 8, 9, 102, 70, 0},
                                                             Shape{3, 9})))
      << out->values.ToJson();
  EXPECT_TRUE(out->mask.Equals(Tensor::FromVector<int64_t>({1, 1, 1, 1, 1, 1, 1, 0, 0,  //
                                                            1, 1, 1, 1, 1, 1, 1, 1, 1,  //
                                                            1, 1, 1, 1, 1, 1, 1, 1, 0},
                                                           Shape{3, 9})))
      << out->mask.ToJson();
  Result<PaddedValues> strings =
      PadOrTruncateRows(Tensor::FromVector<std::string>({"a", "b", "c"}), Ints({0, 3, 0}), 2, 0);
  ASSERT_TRUE(strings.ok()) << strings.status();
  EXPECT_TRUE(strings->values.Equals(Tensor::FromVector<std::string>({"", "", "a", "b", "", ""}, Shape{3, 2})));
}

TEST(PadOrTruncateTest, RowLengthsThatDoNotDescribeTheValuesAreRefused) {
  const Tensor values = Ints({1, 2, 3});
  EXPECT_EQ(PadOrTruncateRows(values, Ints({1, 1}), 2, 0).status().message(),
            "pad_or_truncate: the row lengths add up to 2, but there are 3 values");
  EXPECT_EQ(PadOrTruncateRows(values, Ints({2, 2}), 2, 0).status().message(),
            "pad_or_truncate: row 1 has length 2, but the rows before it hold 2 of the 3 values");
  EXPECT_EQ(PadOrTruncateRows(values, Ints({4, -1}), 2, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PadOrTruncateRows(values, Ints({INT64_MAX, 3}), 2, 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PadOrTruncateRows(values, Tensor::FromVector<int32_t>({3}), 2, 0).status().message(),
            "pad_or_truncate: row lengths must be an int64 vector, got int32[1]");
}

TEST(PadOrTruncateTest, DTypesAndPadValues) {
  Result<PaddedValues> floats = PadOrTruncate(Tensor::FromVector<float>({1.5f}), 3, -1);
  ASSERT_TRUE(floats.ok());
  EXPECT_TRUE(floats->values.Equals(Tensor::FromVector<float>({1.5f, -1, -1})));
  Result<PaddedValues> strings = PadOrTruncate(Tensor::FromVector<std::string>({"a", "b", "c"}), 2, 0);
  ASSERT_TRUE(strings.ok());
  EXPECT_TRUE(strings->values.Equals(Tensor::FromVector<std::string>({"a", "b"})));
  Result<PaddedValues> empty = PadOrTruncate(Tensor::FromVector<std::string>({}), 2, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->values.Equals(Tensor::FromVector<std::string>({"", ""})));
  EXPECT_TRUE(empty->mask.Equals(Ints({0, 0})));
  Result<PaddedValues> none = PadOrTruncate(Ints({1, 2}), 0, 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->values.shape(), Shape{0});
}

TEST(PadOrTruncateTest, InvalidArguments) {
  EXPECT_EQ(PadOrTruncate(Tensor::Scalar<int64_t>(1), 3, 0).status().message(),
            "pad_or_truncate: expected a vector, got int64[]");
  EXPECT_EQ(PadOrTruncate(Ints({1}), -1, 0).status().message(), "pad_or_truncate: length must be >= 0, got -1");
}

}  // namespace
}  // namespace sluice

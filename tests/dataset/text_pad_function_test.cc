#include <gtest/gtest.h>

#include "contract.h"
#include "function_spec_round_trip.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/text_functions.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

TEST(TextPadFunction, FixedLengthWithAMaskThenBatch) {
  ElementFunctionPtr fn = Ok(MakePadOrTruncateFunction("ids", 4, -1));
  EXPECT_EQ(fn->name(), "pad_or_truncate(ids, 4, pad_value=-1)");
  testing::ExpectSpecRoundTrip(*fn);
  const ElementSpec input{{"ids", DType::kInt64, PartialShape{-1}}, {"label", DType::kInt64, Shape{}}};
  BoundElementFunction bound = Ok(fn->Bind(input));
  EXPECT_EQ(bound.output_spec, (ElementSpec{{"ids", DType::kInt64, Shape{4}},
                                            {"ids/mask", DType::kInt64, Shape{4}},
                                            {"label", DType::kInt64, Shape{}}}));
  Element out = Ok(bound.apply(Element{Tensor::FromVector<int64_t>({7, 8}), Tensor::Scalar<int64_t>(1)}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({7, 8, -1, -1})));
  EXPECT_TRUE(out[1].Equals(Tensor::FromVector<int64_t>({1, 1, 0, 0})));
  EXPECT_TRUE(out[2].Equals(Tensor::Scalar<int64_t>(1)));

  // Rows of any length batch without padded_batch.
  Pipeline pipeline = Pipeline::FromTensors({{"ids", Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6})}})
                          .Concatenate(Pipeline::FromTensors({{"ids", Tensor::FromVector<int64_t>({9})}}))
                          .Map(MakePadOrTruncateFunction("ids", 3))
                          .Batch({.batch_size = 2});
  std::vector<Element> batches = testing::Collect(pipeline);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0][0].Equals(Tensor::FromVector<int64_t>({1, 2, 3, 9, 0, 0}, Shape{2, 3})));
  EXPECT_TRUE(batches[0][1].Equals(Tensor::FromVector<int64_t>({1, 1, 1, 1, 0, 0}, Shape{2, 3})));
}

// After a splitter over a batch (values + row lengths), each row is padded:
// [N, length] and its mask, as tf.text's pad_model_inputs pads a ragged batch.
TEST(TextPadFunction, RowsOfABatchArePaddedEachToTheLength) {
  Pipeline pipeline = Pipeline::FromSlices({{"s", Tensor::FromVector<std::string>({"x y z", "", "a b c d e"})}})
                          .Batch({.batch_size = 3})
                          .Map(MakeSplitWhitespaceFunction("s"))
                          .Map(MakePadOrTruncateFunction("s", 4, 0, /*per_row=*/true));
  Result<DatasetPtr> dataset = pipeline.Build();
  ASSERT_TRUE(dataset.ok()) << dataset.status();
  EXPECT_EQ((*dataset)->element_spec(), (ElementSpec{{"s", DType::kString, PartialShape{-1, 4}},
                                                     {"s/mask", DType::kInt64, PartialShape{-1, 4}},
                                                     {"s/row_lengths", DType::kInt64, PartialShape{-1}}}));
  std::vector<Element> batches = testing::Collect(pipeline);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_TRUE(batches[0][0].Equals(
      Tensor::FromVector<std::string>({"x", "y", "z", "", "", "", "", "", "a", "b", "c", "d"}, Shape{3, 4})))
      << batches[0][0].ToJson();
  EXPECT_TRUE(batches[0][1].Equals(Tensor::FromVector<int64_t>({1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1}, Shape{3, 4})));
  EXPECT_TRUE(batches[0][2].Equals(Tensor::FromVector<int64_t>({3, 0, 5})));

  ElementFunctionPtr fn = Ok(MakePadOrTruncateFunction("s", 2, 0, /*per_row=*/true));
  EXPECT_EQ(fn->name(), "pad_or_truncate(s, 2, per_row)");
  testing::ExpectSpecRoundTrip(*fn);
  ExpectStatus(fn->Bind(ElementSpec{{"s", DType::kString, PartialShape{-1}},
                                    {"s/row_lengths", DType::kInt32, PartialShape{-1}}})
                   .status(),
               StatusCode::kInvalidArgument,
               "pad_or_truncate(s, 2, per_row): component s: its row lengths s/row_lengths are int32[?]; expected an "
               "int64 vector");
  ExpectStatus(fn->Bind(ElementSpec{{"s", DType::kString, PartialShape{-1}}}).status(), StatusCode::kInvalidArgument,
               "pad_or_truncate(s, 2, per_row): component s has no row lengths s/row_lengths to pad per row");
  // Without per_row, row lengths (here each word's piece count) stay as they are.
  BoundElementFunction flat = Ok(Ok(MakePadOrTruncateFunction("s", 3))
                                     ->Bind(ElementSpec{{"s", DType::kInt64, PartialShape{-1}},
                                                        {"s/row_lengths", DType::kInt64, PartialShape{-1}}}));
  Element out = Ok(flat.apply(Element{Tensor::FromVector<int64_t>({1, 2}), Tensor::FromVector<int64_t>({1, 1})}));
  EXPECT_TRUE(out[0].Equals(Tensor::FromVector<int64_t>({1, 2, 0})));
  EXPECT_TRUE(out[2].Equals(Tensor::FromVector<int64_t>({1, 1})));
}

TEST(TextPadFunction, InvalidArguments) {
  ExpectStatus(MakePadOrTruncateFunction("", -1).status(), StatusCode::kInvalidArgument,
               "pad_or_truncate: length must be in [0, 16777216], got -1");
  ElementFunctionPtr fn = Ok(MakePadOrTruncateFunction("", 2, 0.5));
  ExpectStatus(fn->Bind(ElementSpec{{"", DType::kInt32, PartialShape{-1}}}).status(), StatusCode::kInvalidArgument,
               "pad_or_truncate(2, pad_value=0.5): component 0: pad_value 0.5 is not a value of int32");
  ExpectStatus(fn->Bind(ElementSpec{{"", DType::kFloat32, Shape{}}}).status(), StatusCode::kInvalidArgument,
               "pad_or_truncate(2, pad_value=0.5): component 0 is float32[]; expected a vector [-1]");
}

}  // namespace
}  // namespace sluice

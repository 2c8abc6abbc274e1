#include "core/tensor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice {
namespace {

TEST(TensorTest, AllocateIsZeroFilled) {
  Tensor t = Tensor::Allocate(DType::kFloat32, Shape{2, 3});
  EXPECT_EQ(t.NumElements(), 6);
  EXPECT_EQ(t.NumBytes(), 24u);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(t.data<float>()[i], 0.0f);
  EXPECT_EQ(t.device(), (Device{DeviceType::kCpu, 0}));
}

TEST(TensorTest, RowsAndSlicesAreViews) {
  Tensor t = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, Shape{3, 2});
  Tensor row = t.Row(1);
  EXPECT_EQ(row.shape(), (Shape{2}));
  EXPECT_EQ(row.data<int64_t>()[0], 2);
  EXPECT_EQ(row.data<int64_t>(), t.data<int64_t>() + 2);  // no copy
  Tensor slice = t.Slice(1, 3);
  EXPECT_EQ(slice.shape(), (Shape{2, 2}));
  EXPECT_TRUE(slice.Row(1).Equals(Tensor::FromVector<int64_t>({4, 5})));
  EXPECT_TRUE(t.Slice(2, 2).Equals(Tensor::Allocate(DType::kInt64, Shape{0, 2})));
}

TEST(TensorTest, ViewsKeepTheBufferAlive) {
  Tensor row;
  {
    Tensor t = Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2});
    row = t.Row(1);
  }
  EXPECT_EQ(row.data<float>()[1], 4.0f);
}

TEST(TensorTest, StringTensors) {
  Tensor s = Tensor::FromVector<std::string>({"a", std::string("b\0c", 3), "\"q\""});
  EXPECT_EQ(s.Row(1).scalar<TString>(), std::string("b\0c", 3));
  EXPECT_EQ(s.ToJson(), R"(["a", "b\u0000c", "\"q\""])");
  Tensor clone = s.Clone();
  EXPECT_TRUE(clone.Equals(s));
  EXPECT_NE(clone.data<TString>(), s.data<TString>());
}

TEST(TensorTest, ReshapeAndEquality) {
  Tensor t = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6});
  Result<Tensor> m = t.Reshaped(Shape{2, 3});
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->Row(1).data<int32_t>()[0], 4);
  EXPECT_FALSE(t.Reshaped(Shape{4}).ok());
  EXPECT_FALSE(t.Equals(*m));
  EXPECT_FALSE(t.Equals(Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(Tensor::FromVector<double>({std::nan("")}).Equals(Tensor::FromVector<double>({std::nan("")})));
}

TEST(TensorTest, Printing) {
  Tensor t = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5}, Shape{2, 3});
  EXPECT_EQ(t.DebugString(), "int64[2, 3] [[0, 1, 2], [3, 4, 5]]");
  EXPECT_EQ(t.DebugString(4), "int64[2, 3] [[0, 1, 2], [3, ...]]");
  EXPECT_EQ(Tensor::Scalar(true).ToJson(), "true");
  EXPECT_EQ(Tensor::FromVector<float>({0.5f, -2}).ToJson(), "[0.5, -2]");
  EXPECT_EQ(Tensor::Scalar(Float16(1.5f)).ToJson(), "1.5");
}

TEST(TensorTest, CopyIntoRows) {
  Tensor dst = Tensor::Allocate(DType::kFloat32, Shape{3, 2});
  CopyIntoRows(Tensor::FromVector<float>({1, 2, 3, 4}, Shape{2, 2}), dst, 1);
  CopyIntoRows(Tensor::FromVector<float>({7, 8}), dst, 0);
  EXPECT_TRUE(dst.Equals(Tensor::FromVector<float>({7, 8, 1, 2, 3, 4}, Shape{3, 2})));
}

}  // namespace
}  // namespace sluice

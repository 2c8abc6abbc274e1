#include "sluice/core/tensor.h"

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

// AssignRow makes a tensor the row that Row would, in place: of the same
// run, of another run (another dtype and shape), from an invalid tensor;
// copies taken before keep their own row, and the tape id starts over.
TEST(TensorTest, AssignRowIsRowInPlace) {
  const Tensor matrix = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, Shape{4, 3});
  const Tensor vector = Tensor::FromVector<float>({0.5f, 1.5f, 2.5f});
  Tensor t;
  t.AssignRow(matrix, 1);
  EXPECT_TRUE(t.Equals(matrix.Row(1))) << t;
  EXPECT_EQ(t.raw_data(), matrix.Row(1).raw_data());
  const Tensor kept = t;
  t.set_tape_id(7);
  t.AssignRow(matrix, 3);
  EXPECT_TRUE(t.Equals(matrix.Row(3))) << t;
  EXPECT_EQ(t.shape(), Shape{3});
  EXPECT_EQ(t.tape_id(), 0u);
  EXPECT_TRUE(kept.Equals(Tensor::FromVector<int64_t>({3, 4, 5}))) << kept;
  t.AssignRow(vector, 2);
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), Shape{});
  EXPECT_EQ(t.scalar<float>(), 2.5f);
  EXPECT_EQ(t.raw_data(), vector.Row(2).raw_data());
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

// A string tensor viewing `bytes` of a fresh chunk of `chunk_size` bytes:
// records as the TFRecord reader hands them out, each `size` bytes long.
Tensor ViewsOfAChunk(int64_t count, size_t size, size_t chunk_size) {
  auto chunk = Buffer::Allocate(chunk_size, CpuAllocator(), Buffer::Fill::kUninitialized);
  auto* bytes = static_cast<char*>(chunk->data());
  for (size_t i = 0; i < chunk_size; ++i) bytes[i] = static_cast<char>('a' + i % 26);
  Tensor records = Tensor::Allocate(DType::kString, Shape{count});
  for (int64_t i = 0; i < count; ++i) {
    records.mutable_data<TString>()[i] = TString::View({bytes + i * size, size});
  }
  records.AddBacking(std::move(chunk));
  return records;
}

// Views stay valid while any tensor sharing the buffer lives: the chunk's
// only owner is the tensor's buffer (ASan would see a use after free).
TEST(TensorTest, StringViewsLiveAsLongAsTheirBacking) {
  Tensor row;
  {
    Tensor records = ViewsOfAChunk(4, 3, 64);
    EXPECT_EQ(records.BackingBytes(), 64u);
    row = records.Row(2);
  }
  EXPECT_TRUE(row.scalar<TString>().is_view());
  EXPECT_EQ(row.scalar<TString>(), "ghi");
}

// Views are copied as views and the destination keeps the source's buffer
// alive; owned strings are copied.
TEST(TensorTest, CopyIntoRowsKeepsViewsAndTheirBacking) {
  Tensor batch = Tensor::Allocate(DType::kString, Shape{3});
  {
    const Tensor records = ViewsOfAChunk(2, 2, 16);
    CopyIntoRows(records, batch, 0);
    CopyIntoRows(Tensor::Scalar("owned"), batch, 2);
  }
  const TString* strings = batch.data<TString>();
  EXPECT_TRUE(strings[0].is_view());
  EXPECT_EQ(strings[1], "cd");
  EXPECT_FALSE(strings[2].is_view());
  EXPECT_TRUE(batch.Equals(Tensor::FromVector<std::string>({"ab", "cd", "owned"})));
  EXPECT_GE(batch.BackingBytes(), 16u);
}

TEST(TensorTest, CompactedHoldsItsBytesAlone) {
  const Tensor records = ViewsOfAChunk(3, 4, 4096);
  const Tensor compact = records.Slice(1, 3).Compacted();
  EXPECT_TRUE(compact.Equals(Tensor::FromVector<std::string>({"efgh", "ijkl"})));
  EXPECT_EQ(compact.BackingBytes(), 0u);
  EXPECT_TRUE(Tensor::FromVector<std::string>({"", "x"}).Compacted().Equals(
      Tensor::FromVector<std::string>({"", "x"})));
  const Tensor clone = records.Clone();
  EXPECT_TRUE(clone.Equals(records));
  EXPECT_EQ(clone.BackingBytes(), 0u);
}

// The no-pinning policy: a string that views a chunk much larger than
// itself is copied out; one that uses most of its backing, a string without
// backings and a numeric tensor are kept as they are.
TEST(TensorTest, UnpinnedCopiesOnlyStringsThatPinMuchMore) {
  struct Case {
    const char* name;
    Tensor tensor;
    bool compacted;
  };
  const Case cases[] = {
      {"1 KiB record of a 256 KiB chunk", ViewsOfAChunk(1, 1024, 256 << 10), true},
      {"a row of such a run", ViewsOfAChunk(64, 1024, 256 << 10).Row(5), true},
      {"a run filling its chunk", ViewsOfAChunk(64, 1024, 64 << 10), false},
      {"small chunk within the slack", ViewsOfAChunk(1, 10, Tensor::kPinnedSlack), false},
      {"owned strings", Tensor::FromVector<std::string>({"a", "b"}).Row(0), false},
      {"numeric row", Tensor::Allocate(DType::kFloat32, Shape{1000, 2}).Row(0), false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor unpinned = c.tensor.Unpinned();
    EXPECT_TRUE(unpinned.Equals(c.tensor));
    EXPECT_EQ(unpinned.raw_data() != c.tensor.raw_data(), c.compacted);
    if (c.compacted) {
      EXPECT_EQ(unpinned.BackingBytes(), 0u);
    }
  }
}

// An allocator that is always exhausted.
class ExhaustedAllocator final : public Allocator {
 public:
  void* Allocate(size_t) override { return nullptr; }
  void Deallocate(void*, size_t) override {}
  Device device() const override { return Device{}; }
  std::string_view name() const override { return "exhausted"; }
};

// Sizes from user input: a byte size that overflows is InvalidArgument
// naming the shape; one above the limit, or that the allocator can't give,
// is ResourceExhausted; never an abort or a wrapped size.
TEST(TensorTest, TryAllocateChecksTheSize) {
  constexpr int64_t k2To61 = int64_t{1} << 61;
  EXPECT_EQ(*CheckedNumBytes(DType::kInt64, Shape{3, 4}), 96);
  EXPECT_EQ(*CheckedNumBytes(DType::kString, Shape{2}), static_cast<int64_t>(2 * sizeof(TString)));
  // 2^61 elements fit int64; their 8-byte values don't.
  Result<int64_t> bytes = CheckedNumBytes(DType::kInt64, Shape{k2To61});
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bytes.status().message().find("[2305843009213693952]"), std::string::npos) << bytes.status();

  Result<Tensor> overflow = Tensor::TryAllocate(DType::kFloat32, Shape{k2To61, 4});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.status().code(), StatusCode::kInvalidArgument);

  Result<Tensor> above = Tensor::TryAllocate(DType::kInt64, Shape{1000}, {.max_bytes = 4096, .limit_name = "the RAM budget"});
  ASSERT_FALSE(above.ok());
  EXPECT_EQ(above.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(above.status().message(), "a tensor of int64[1000] takes 8000 bytes, above the RAM budget (4096 bytes)");

  // Larger than the host: the default limit.
  Result<Tensor> host = Tensor::TryAllocate(DType::kInt64, Shape{int64_t{1000000000000}});
  ASSERT_FALSE(host.ok());
  EXPECT_EQ(host.status().code(), StatusCode::kResourceExhausted);

  ExhaustedAllocator exhausted;
  Result<Tensor> none = Tensor::TryAllocate(DType::kInt32, Shape{4}, {.allocator = &exhausted});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(none.status().message().find("exhausted allocator exhausted allocating 16 bytes"), std::string::npos)
      << none.status();

  Tensor fits = *Tensor::TryAllocate(DType::kInt64, Shape{2, 3}, {.max_bytes = 48});
  EXPECT_EQ(fits.NumBytes(), 48u);
  EXPECT_EQ(fits.data<int64_t>()[5], 0);
  EXPECT_EQ(Tensor::TryAllocate(DType::kString, Shape{3})->NumElements(), 3);
}

}  // namespace
}  // namespace sluice

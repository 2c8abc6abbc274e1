// Tensor: a dtype, a shape and a view (byte offset) into a ref-counted
// Buffer. Slicing along axis 0 is a view, never a copy. String tensors hold
// TStrings (core/tstring.h; a TFRecord record is a scalar string).
//
// Tensors are values: copying one copies the view, not the bytes. A tensor's
// bytes are written only through mutable_data() by whoever allocated it,
// before it is shared; after that, treat them as immutable. A tensor is
// trivially relocatable (no member points into the tensor itself): elements
// move their tensors by copying the bytes (core/component_vector.h), so a
// member added here must keep it so.
//
// String views and pinning: the elements of a string tensor may view bytes
// that its buffer keeps alive (AddBacking): the record reader hands out
// records as views of its read chunks, the Example parser bytes features as
// views of the records. Such a view keeps its whole backing alive, so a
// 1 KiB record held alone pins its 256 KiB chunk. Short-lived elements don't
// care; ops that hold elements for long (shuffle's buffer, cache) pass them
// through Unpinned(), which copies out the strings of a tensor that pins
// much more than it holds.
// Thread safety: const methods are safe from any thread.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sluice/core/buffer.h"
#include "sluice/core/dtype.h"
#include "sluice/core/shape.h"
#include "sluice/core/status.h"

namespace sluice {

class Tensor {
 public:
  Tensor() = default;  // an invalid tensor; valid() is false

  // Allocation of a tensor whose shape comes from user input or data (a
  // batch size, a padded shape, a feature's shape, a one_hot depth): the
  // byte size is checked (InvalidArgument naming the shape when it
  // overflows), charged against `max_bytes` (ResourceExhausted naming the
  // shape, its size and the limit when above), and an exhausted allocator
  // is ResourceExhausted too, never an abort. Callers add the op and the
  // component (Status::WithContext). `fill` as Buffer::Fill; string
  // tensors are always empty strings.
  struct AllocateOptions {
    // The most bytes the tensor may take: the traversal's RAM budget for a
    // dataset op; by default the host's physical memory.
    int64_t max_bytes = HostMemoryBytes();
    std::string_view limit_name = "the host's memory";  // what max_bytes is, for the error
    Buffer::Fill fill = Buffer::Fill::kZero;
    Allocator* allocator = CpuAllocator();
  };
  static Result<Tensor> TryAllocate(DType dtype, const Shape& shape, const AllocateOptions& options);
  static Result<Tensor> TryAllocate(DType dtype, const Shape& shape) { return TryAllocate(dtype, shape, {}); }

  // Allocate and AllocateUninitialized are for shapes already bounded
  // (internal sizes, or ones a factory has checked); they abort when the
  // allocator is exhausted.
  // Zero-filled numeric tensor or a tensor of empty strings.
  static Tensor Allocate(DType dtype, const Shape& shape, Allocator* allocator = CpuAllocator());
  // Like Allocate, but numeric values are left uninitialized: for a caller
  // that writes every value before sharing the tensor. The only way to make
  // a tensor in device memory (an allocator whose device is not the host),
  // whose bytes the host must not touch. REQUIRES: numeric dtype unless the
  // allocator is the host's.
  static Tensor AllocateUninitialized(DType dtype, const Shape& shape, Allocator* allocator = CpuAllocator());
  // A numeric tensor viewing bytes [offset, offset + its size) of `buffer`:
  // for readers that receive the bytes of several tensors in one buffer (the
  // data service's element payloads). InvalidArgument when the dtype is
  // kString (a buffer of raw bytes holds no TStrings), the size overflows,
  // the range passes the buffer's end, or the offset is not a multiple of
  // the dtype's size (values must be aligned).
  static Result<Tensor> ViewOf(DType dtype, const Shape& shape, std::shared_ptr<Buffer> buffer, size_t offset);
  template <typename T>
  static Tensor Scalar(T value);
  // A string scalar holding a copy of `value`.
  static Tensor Scalar(std::string_view value);
  static Tensor Scalar(const char* value) { return Scalar(std::string_view(value)); }
  static Tensor Scalar(const std::string& value) { return Scalar(std::string_view(value)); }
  // REQUIRES: values.size() == shape.NumElements(). std::string values make
  // a string tensor of owned copies.
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const Shape& shape);
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, Shape{static_cast<int64_t>(values.size())});
  }

  bool valid() const { return buffer_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t NumElements() const { return shape_.NumElements(); }
  size_t NumBytes() const { return static_cast<size_t>(NumElements()) * DTypeSize(dtype_); }
  Device device() const { return buffer_->device(); }

  // Element access. REQUIRES: T matches dtype().
  template <typename T>
  const T* data() const {
    CheckType<T>();
    return reinterpret_cast<const T*>(raw_data());
  }
  template <typename T>
  T* mutable_data() {
    CheckType<T>();
    return reinterpret_cast<T*>(raw_data());
  }
  template <typename T>
  const T& scalar() const {
    SLUICE_CHECK(NumElements() == 1) << "scalar() on a tensor of shape " << shape_;
    return *data<T>();
  }
  const void* raw_data() const { return static_cast<char*>(buffer_->data()) + offset_; }
  void* raw_data() { return static_cast<char*>(buffer_->data()) + offset_; }

  // Views. REQUIRES: rank >= 1 and 0 <= begin <= end <= dim(0) / 0 <= i < dim(0).
  Tensor Slice(int64_t begin, int64_t end) const;
  Tensor Row(int64_t i) const {
    // A vector's rows are scalars: the common per-element case, inline.
    if (rank() == 1 && 0 <= i && i < dim(0)) [[likely]] {
      return Tensor(dtype_, Shape(), buffer_, offset_ + static_cast<size_t>(i) * DTypeSize(dtype_));
    }
    return RowOfMatrix(i);
  }
  // Makes this tensor run.Row(i) in place. A tensor that already views
  // `run`'s buffer (a per-row loop reusing one element's tensors for row
  // after row) keeps its reference to it: no reference-count traffic.
  // Only what differs from the last row is written, and the offset with the
  // tape id in one 16-byte store: the row is relocated next (into a
  // function's argument) by 16-byte loads, and a load that spans narrower
  // stores still in flight waits for them to complete.
  // REQUIRES: as run.Row(i).
  void AssignRow(const Tensor& run, int64_t i) {
    SLUICE_CHECK(run.rank() >= 1 && 0 <= i && i < run.dim(0)) << "AssignRow(" << i << ") of shape " << run.shape_;
    if (dtype_ != run.dtype_) dtype_ = run.dtype_;
    if (!shape_.IsWithoutFirstDimOf(run.shape_)) shape_.AssignWithoutFirstDim(run.shape_);
    if (buffer_ != run.buffer_) buffer_ = run.buffer_;
    SetOffsetClearingTapeId(run.offset_ + static_cast<size_t>(i * shape_.NumElements()) * DTypeSize(dtype_));
  }
  // A view with the same elements and another shape.
  Result<Tensor> Reshaped(const Shape& shape) const;
  // Adds a leading dimension of 1 in place (same bytes): one element as a
  // run of one.
  void PrependUnitDim() { shape_ = shape_.Prepended(1); }

  // A deep copy into a fresh buffer (strings: as Compacted()).
  Tensor Clone() const;

  // String tensors (core/tstring.h). Makes this tensor's buffer keep
  // `backing` alive, for elements that view its bytes.
  // REQUIRES: a string tensor that its creator hasn't shared yet.
  void AddBacking(std::shared_ptr<const Buffer> backing);
  // The same for the bytes that `other`'s elements hold or view: elements of
  // this tensor may then view them.
  void AddBacking(const Tensor& other) { AddBacking(other.buffer_); }
  // A string tensor's copy whose elements' bytes all sit in the new buffer's
  // own allocation (one for the whole tensor), keeping nothing else alive.
  Tensor Compacted() const;
  // The memory that this tensor's backings keep alive (their
  // Buffer::RetainedBytes); 0 for a tensor without backings.
  size_t BackingBytes() const;
  // Where the bytes at `p` (an element's, or bytes it views) were read from
  // (Buffer::OriginOf); a null source when unknown.
  Buffer::Origin OriginOf(const void* p) const { return valid() ? buffer_->OriginOf(p) : Buffer::Origin{}; }
  // For holders that keep elements for long: Compacted() when this is a
  // string tensor whose BackingBytes() exceed kMaxPinnedRatio times the
  // bytes of its strings plus kPinnedSlack; itself otherwise. Numeric
  // tensors and strings without backings (owned, or in their buffer's own
  // bytes) come back as they are.
  static constexpr size_t kMaxPinnedRatio = 2;
  static constexpr size_t kPinnedSlack = 4096;
  Tensor Unpinned() const;
  // Same dtype, shape and values (floats compared bit-for-bit but NaN == NaN).
  bool Equals(const Tensor& other) const;

  // The identity the executor's gradient tape tracks this value by
  // (executor/gradient_tape.h): 0 until a tape watches or produces it. Copies
  // share it; views made by Slice, Row and Reshaped start at 0.
  uint64_t tape_id() const { return tape_id_; }
  void set_tape_id(uint64_t id) { tape_id_ = id; }

  // "int64[2, 3] [[0, 1, 2], [3, 4, 5]]", eliding past max_values values.
  std::string DebugString(int64_t max_values = 32) const;
  // The values as nested JSON lists ("[[0, 1], [2, 3]]"; a scalar is bare);
  // strings and non-finite floats as core/json.h writes them.
  std::string ToJson() const;

 private:
  Tensor(DType dtype, const Shape& shape, std::shared_ptr<Buffer>&& buffer, size_t offset)
      : dtype_(dtype), shape_(shape), buffer_(std::move(buffer)), offset_(offset) {}
  Tensor(DType dtype, const Shape& shape, const std::shared_ptr<Buffer>& buffer, size_t offset)
      : dtype_(dtype), shape_(shape), buffer_(buffer), offset_(offset) {}
  // offset_ = offset and tape_id_ = 0, in one store where the target has
  // 16-byte stores (AssignRow).
  void SetOffsetClearingTapeId(size_t offset) {
#if defined(__SSE2__)
    static_assert(offsetof(Tensor, tape_id_) == offsetof(Tensor, offset_) + sizeof(offset_));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(&offset_), _mm_cvtsi64_si128(static_cast<long long>(offset)));
#else
    offset_ = offset;
    tape_id_ = 0;
#endif
  }
  // Row() of a tensor of rank >= 2 (or a failed check).
  Tensor RowOfMatrix(int64_t i) const;
  template <typename T>
  void CheckType() const {
    static_assert(!std::is_same_v<std::remove_cv_t<T>, std::string>,
                  "string tensors hold TString (core/tstring.h), not std::string");
    SLUICE_CHECK(DTypeOf<std::remove_cv_t<T>>::value == dtype_)
        << "tensor of dtype " << DTypeName(dtype_) << " accessed as "
        << DTypeName(DTypeOf<std::remove_cv_t<T>>::value);
  }

  DType dtype_ = DType::kFloat32;
  Shape shape_;
  std::shared_ptr<Buffer> buffer_;
  size_t offset_ = 0;  // bytes into buffer_
  uint64_t tape_id_ = 0;
};

// The bytes of a tensor of `dtype` and `shape` (TStrings for strings), or
// InvalidArgument naming the shape when the count or the bytes overflow
// int64. REQUIRES: dims >= 0.
Result<int64_t> CheckedNumBytes(DType dtype, const Shape& shape);

// Copies all of `src` into rows [row, row + src.dim(0)) of `dst`, or (when
// src has dst's rank minus one) into the single row `row`. String views are
// copied as views, and dst keeps src's buffer alive (AddBacking); owned
// strings are copied.
// REQUIRES: same dtype, matching trailing shape, rows in range; dst freshly
// allocated (not shared yet).
void CopyIntoRows(const Tensor& src, Tensor& dst, int64_t row);

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t = Allocate(DTypeOf<T>::value, Shape{});
  *t.mutable_data<T>() = std::move(value);
  return t;
}

template <typename T>
Tensor Tensor::FromVector(const std::vector<T>& values, const Shape& shape) {
  SLUICE_CHECK(static_cast<int64_t>(values.size()) == shape.NumElements())
      << values.size() << " values for shape " << shape;
  using Stored = std::conditional_t<std::is_same_v<T, std::string>, TString, T>;
  Tensor t = Allocate(DTypeOf<Stored>::value, shape);
  Stored* out = t.mutable_data<Stored>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];  // vector<bool> has no data()
  return t;
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor);

}  // namespace sluice

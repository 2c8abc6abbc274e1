#include "sluice/core/tensor.h"

#include <cmath>
#include <cstdio>

#include "sluice/core/json.h"

namespace sluice {
namespace {

// Appends one value: numbers, true/false, strings as JSON strings
// (core/json.h). Non-finite floats are NaN/Infinity for people
// (DebugString) and the strings "nan"/"inf"/"-inf" in JSON, which has no
// spelling for them.
template <typename T>
void AppendValue(std::string& out, const T& value, bool json) {
  if constexpr (std::is_same_v<T, TString>) {
    AppendJsonString(out, std::string_view(value));
  } else if constexpr (std::is_same_v<T, bool>) {
    out += value ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    out += std::to_string(static_cast<int64_t>(value));
  } else {
    const double v = ConvertValue<double>(value);
    if (json || std::isfinite(v)) {
      AppendJsonFloat(out, v);
    } else {
      out += std::isnan(v) ? "NaN" : (v > 0 ? "Infinity" : "-Infinity");
    }
  }
}

// Writes values nested by shape: "[[1, 2], [3, 4]]". Stops after max_values
// values with "...".
template <typename T>
void AppendNested(std::string& out, const T* values, std::span<const int64_t> dims,
                  int64_t& remaining, bool json) {
  if (dims.empty()) {
    if (remaining-- > 0) AppendValue(out, *values, json);
    return;
  }
  int64_t stride = 1;
  for (size_t i = 1; i < dims.size(); ++i) stride *= dims[i];
  out += '[';
  for (int64_t i = 0; i < dims[0]; ++i) {
    if (i > 0) out += ", ";
    if (remaining <= 0) {
      out += "...";
      break;
    }
    AppendNested(out, values + i * stride, dims.subspan(1), remaining, json);
  }
  out += ']';
}

}  // namespace

Result<int64_t> CheckedNumBytes(DType dtype, const Shape& shape) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t count, shape.CheckedNumElements());
  const auto element_size = static_cast<int64_t>(DTypeSize(dtype));
  int64_t bytes;
  if (__builtin_mul_overflow(count, element_size, &bytes)) {
    return InvalidArgumentError("shape ", shape, " of ", dtype, " takes more bytes than fit in int64 (", count,
                                " elements of ", element_size, " bytes)");
  }
  return bytes;
}

Result<Tensor> Tensor::TryAllocate(DType dtype, const Shape& shape, const AllocateOptions& options) {
  SLUICE_ASSIGN_OR_RETURN(const int64_t bytes, CheckedNumBytes(dtype, shape));
  if (bytes > options.max_bytes) {
    return ResourceExhaustedError("a tensor of ", dtype, shape, " takes ", bytes, " bytes, above ",
                                  options.limit_name, " (", options.max_bytes, " bytes)");
  }
  Result<std::shared_ptr<Buffer>> buffer =
      dtype == DType::kString ? Buffer::TryAllocateStrings(static_cast<size_t>(shape.NumElements()))
                              : Buffer::TryAllocate(static_cast<size_t>(bytes), options.allocator, options.fill);
  if (!buffer.ok()) return buffer.status().WithContext(StrCat("a tensor of ", dtype, shape));
  return Tensor(dtype, shape, std::move(*buffer), 0);
}

Tensor Tensor::Allocate(DType dtype, const Shape& shape, Allocator* allocator) {
  const auto count = static_cast<size_t>(shape.NumElements());
  if (dtype == DType::kString) return Tensor(dtype, shape, Buffer::AllocateStrings(count), 0);
  return Tensor(dtype, shape, Buffer::Allocate(count * DTypeSize(dtype), allocator), 0);
}

Tensor Tensor::AllocateUninitialized(DType dtype, const Shape& shape, Allocator* allocator) {
  if (dtype == DType::kString) {
    SLUICE_CHECK(allocator->device().type == DeviceType::kCpu) << "string tensors live on the host";
    return Allocate(dtype, shape);
  }
  const auto bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(dtype);
  return Tensor(dtype, shape, Buffer::Allocate(bytes, allocator, Buffer::Fill::kUninitialized), 0);
}

Tensor Tensor::Slice(int64_t begin, int64_t end) const {
  SLUICE_CHECK(rank() >= 1 && 0 <= begin && begin <= end && end <= dim(0))
      << "Slice(" << begin << ", " << end << ") of shape " << shape_;
  Shape shape = shape_;
  shape.set_dim(0, end - begin);
  int64_t row_elements = 1;
  for (int i = 1; i < rank(); ++i) row_elements *= dim(i);
  return Tensor(dtype_, shape, buffer_,
                offset_ + static_cast<size_t>(begin * row_elements) * DTypeSize(dtype_));
}

Tensor Tensor::RowOfMatrix(int64_t i) const {
  SLUICE_CHECK(rank() >= 2 && 0 <= i && i < dim(0)) << "Row(" << i << ") of shape " << shape_;
  const Shape shape = shape_.WithoutFirstDim();
  const size_t offset = offset_ + static_cast<size_t>(i * shape.NumElements()) * DTypeSize(dtype_);
  return Tensor(dtype_, shape, buffer_, offset);
}

Result<Tensor> Tensor::Reshaped(const Shape& shape) const {
  if (shape.NumElements() != NumElements()) {
    return InvalidArgumentError("cannot reshape a tensor of shape ", shape_, " (", NumElements(),
                                " elements) to shape ", shape, " (", shape.NumElements(),
                                " elements)");
  }
  return Tensor(dtype_, shape, buffer_, offset_);
}

Result<Tensor> Tensor::ViewOf(DType dtype, const Shape& shape, std::shared_ptr<Buffer> buffer, size_t offset) {
  if (dtype == DType::kString) {
    return InvalidArgumentError("a view of raw bytes cannot be a string tensor (shape ", shape, ")");
  }
  SLUICE_ASSIGN_OR_RETURN(const int64_t bytes, CheckedNumBytes(dtype, shape));
  if (offset > buffer->size() || static_cast<uint64_t>(bytes) > buffer->size() - offset) {
    return InvalidArgumentError("a ", DTypeName(dtype), shape, " tensor of ", bytes, " bytes at offset ", offset,
                                " passes the end of a buffer of ", buffer->size(), " bytes");
  }
  if (offset % DTypeSize(dtype) != 0) {
    return InvalidArgumentError("a ", DTypeName(dtype), " tensor's offset must be a multiple of ", DTypeSize(dtype),
                                ", found ", offset);
  }
  return Tensor(dtype, shape, std::move(buffer), offset);
}

Tensor Tensor::Scalar(std::string_view value) {
  Tensor t = Allocate(DType::kString, Shape{});
  *t.mutable_data<TString>() = value;
  return t;
}

Tensor Tensor::Clone() const {
  if (dtype_ == DType::kString) return Compacted();
  Tensor copy = AllocateUninitialized(dtype_, shape_);
  std::memcpy(copy.raw_data(), raw_data(), NumBytes());
  return copy;
}

void Tensor::AddBacking(std::shared_ptr<const Buffer> backing) {
  SLUICE_CHECK(dtype_ == DType::kString) << "AddBacking on a " << DTypeName(dtype_) << " tensor";
  buffer_->AddBacking(std::move(backing));
}

Tensor Tensor::Compacted() const {
  SLUICE_CHECK(dtype_ == DType::kString) << "Compacted on a " << DTypeName(dtype_) << " tensor";
  const TString* src = data<TString>();
  const auto count = static_cast<size_t>(NumElements());
  size_t bytes = 0;
  for (size_t i = 0; i < count; ++i) bytes += src[i].size();
  Tensor copy(dtype_, shape_, Buffer::AllocateStrings(count, bytes), 0);
  TString* dst = copy.mutable_data<TString>();
  char* pos = copy.buffer_->string_bytes();
  for (size_t i = 0; i < count; ++i) {
    if (src[i].empty()) continue;
    std::memcpy(pos, src[i].data(), src[i].size());
    dst[i] = TString::View({pos, src[i].size()});
    pos += src[i].size();
  }
  return copy;
}

size_t Tensor::BackingBytes() const {
  size_t bytes = 0;
  for (const auto& backing : buffer_->backings()) bytes += backing->RetainedBytes();
  return bytes;
}

Tensor Tensor::Unpinned() const {
  if (dtype_ != DType::kString || buffer_->backings().empty()) return *this;
  const TString* strings = data<TString>();
  size_t held = 0;
  for (int64_t i = 0; i < NumElements(); ++i) held += strings[i].size();
  return BackingBytes() > kMaxPinnedRatio * held + kPinnedSlack ? Compacted() : *this;
}

bool Tensor::Equals(const Tensor& other) const {
  if (valid() != other.valid()) return false;
  if (!valid()) return true;
  if (dtype_ != other.dtype_ || !(shape_ == other.shape_)) return false;
  return VisitDType(dtype_, [&](auto zero) {
    using T = decltype(zero);
    const T* a = data<T>();
    const T* b = other.data<T>();
    for (int64_t i = 0; i < NumElements(); ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        if (std::isnan(a[i]) && std::isnan(b[i])) continue;
      }
      if (!(a[i] == b[i])) return false;
    }
    return true;
  });
}

std::string Tensor::DebugString(int64_t max_values) const {
  if (!valid()) return "<invalid tensor>";
  std::string out = StrCat(DTypeName(dtype_), shape_.ToString(), " ");
  int64_t remaining = max_values;
  VisitDType(dtype_, [&](auto zero) {
    AppendNested(out, data<decltype(zero)>(), shape_.dims(), remaining, /*json=*/false);
  });
  return out;
}

std::string Tensor::ToJson() const {
  std::string out;
  int64_t remaining = NumElements();
  VisitDType(dtype_, [&](auto zero) {
    AppendNested(out, data<decltype(zero)>(), shape_.dims(), remaining, /*json=*/true);
  });
  return out;
}

void CopyIntoRows(const Tensor& src, Tensor& dst, int64_t row) {
  SLUICE_CHECK(src.dtype() == dst.dtype()) << src.dtype() << " into " << dst.dtype();
  const int64_t rows = src.rank() == dst.rank() ? src.dim(0) : 1;
  SLUICE_CHECK(row >= 0 && row + rows <= dst.dim(0)) << "rows out of range";
  const int64_t row_elements = dst.dim(0) == 0 ? 0 : dst.NumElements() / dst.dim(0);
  SLUICE_CHECK(src.NumElements() == rows * row_elements)
      << "shape " << src.shape() << " does not fit rows of " << dst.shape();
  if (src.dtype() == DType::kString) {
    const TString* from = src.data<TString>();
    TString* to = dst.mutable_data<TString>() + row * row_elements;
    bool views = false;
    for (int64_t i = 0; i < src.NumElements(); ++i) {
      if (from[i].is_view()) {
        to[i] = TString::View(from[i]);
        views = true;
      } else {
        to[i] = from[i];
      }
    }
    if (views) dst.AddBacking(src);
    return;
  }
  const size_t element_size = DTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst.raw_data()) + row * row_elements * element_size,
              src.raw_data(), src.NumBytes());
}

std::ostream& operator<<(std::ostream& out, const Tensor& tensor) {
  return out << tensor.DebugString();
}

}  // namespace sluice

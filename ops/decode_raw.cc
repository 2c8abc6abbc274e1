#include "sluice/ops/decode_raw.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

namespace sluice {
namespace {

// Reverses the bytes of each `size`-byte value in [data, data + bytes).
void SwapBytes(char* data, size_t bytes, size_t size) {
  for (char* value = data; value < data + bytes; value += size) std::reverse(value, value + size);
}

}  // namespace

Status CheckDecodeRawOptions(const DecodeRawOptions& options) {
  if (options.dtype == DType::kString) return InvalidArgumentError("decode_raw: dtype must not be string");
  const auto size = static_cast<int64_t>(DTypeSize(options.dtype));
  if (options.fixed_length < 0 || options.fixed_length > DecodeRawOptions::kMaxFixedLength ||
      options.fixed_length % size != 0) {
    return InvalidArgumentError("decode_raw: fixed_length must be 0 to ", DecodeRawOptions::kMaxFixedLength,
                                " bytes and a multiple of ", size, " (the size of ", options.dtype, "), got ",
                                options.fixed_length);
  }
  return OkStatus();
}

Result<Tensor> DecodeRaw(const Tensor& strings, const DecodeRawOptions& options, Tensor::AllocateOptions limit) {
  SLUICE_RETURN_IF_ERROR(CheckDecodeRawOptions(options));
  if (strings.dtype() != DType::kString) {
    return InvalidArgumentError("decode_raw: input must be strings, got ", strings.dtype(), strings.shape());
  }
  const size_t size = DTypeSize(options.dtype);
  const TString* in = strings.data<TString>();
  const int64_t count = strings.NumElements();
  int64_t length = options.fixed_length;  // bytes per string in the result
  if (length == 0 && count > 0) {
    length = static_cast<int64_t>(in[0].size());
    for (int64_t i = 1; i < count; ++i) {
      if (static_cast<int64_t>(in[i].size()) != length) {
        return InvalidArgumentError(
            "decode_raw: DecodeRaw requires input strings to all be the same size, but element ", i, " has size ",
            in[i].size(), " != ", length);
      }
    }
    if (length % static_cast<int64_t>(size) != 0) {
      return InvalidArgumentError("decode_raw: Input to DecodeRaw has length ", length, " that is not a multiple of ",
                                  size, ", the size of ", options.dtype);
    }
  }
  std::vector<int64_t> dims(strings.shape().dims().begin(), strings.shape().dims().end());
  dims.push_back(length / static_cast<int64_t>(size));
  Result<Shape> shape = Shape::FromDims(dims);
  if (!shape.ok()) return shape.status().WithContext("decode_raw");
  limit.fill = Buffer::Fill::kUninitialized;
  Result<Tensor> allocated = Tensor::TryAllocate(options.dtype, *shape, limit);
  if (!allocated.ok()) return allocated.status().WithContext("decode_raw");
  Tensor out = std::move(*allocated);
  char* bytes = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < count; ++i) {
    char* row = bytes + i * length;
    const size_t copied = std::min<size_t>(in[i].size(), static_cast<size_t>(length));
    std::memcpy(row, in[i].data(), copied);
    std::memset(row + copied, 0, static_cast<size_t>(length) - copied);
  }
  const bool host_little = std::endian::native == std::endian::little;
  if (size > 1 && options.little_endian != host_little) SwapBytes(bytes, static_cast<size_t>(count * length), size);
  if (options.dtype == DType::kBool) {
    for (int64_t i = 0; i < count * length; ++i) bytes[i] = bytes[i] != 0;  // a bool is 0 or 1
  }
  return out;
}

}  // namespace sluice

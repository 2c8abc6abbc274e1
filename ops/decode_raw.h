// DecodeRaw: the bytes of strings as numbers (tf.io.decode_raw): each
// string of `strings` becomes a vector of `dtype` values, so the result has
// strings' shape + [length / DTypeSize(dtype)]. Values are read
// little-endian unless told otherwise. Without fixed_length every string
// must have the same length, a multiple of the dtype's size; with it, each
// string is cut or zero-padded to fixed_length bytes (a multiple of the
// size). Errors are InvalidArgument naming the string and its length.
// The result is allocated within `limit` (Tensor::TryAllocate).
// Thread safety: a pure function.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"

namespace sluice {

struct DecodeRawOptions {
  static constexpr int64_t kMaxFixedLength = int64_t{1} << 32;  // 4 GiB

  DType dtype = DType::kUInt8;  // any dtype but string
  bool little_endian = true;
  int64_t fixed_length = 0;  // bytes per string, <= kMaxFixedLength; 0: each string's own
};

// OK when the options are valid: a numeric or bool dtype, fixed_length in
// [0, kMaxFixedLength] and a multiple of the dtype's size.
Status CheckDecodeRawOptions(const DecodeRawOptions& options);

Result<Tensor> DecodeRaw(const Tensor& strings, const DecodeRawOptions& options,
                         Tensor::AllocateOptions limit = {});

}  // namespace sluice

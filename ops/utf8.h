// Input checks the text kernels share (ops/string_hash.h, ops/vocabulary.h,
// ops/text_split.h, ops/text_normalize.h, ops/wordpiece.h): a string
// tensor, and well-formed UTF-8 for those that work on characters, so that
// ill-formed bytes are an error rather than guessed at.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

// InvalidArgument "<kernel>: expected strings, got int64[2]" unless `t` is
// a string tensor.
Status CheckStrings(std::string_view kernel, const Tensor& t);

// OK when `bytes` is well-formed UTF-8 of at most 2^31 - 1 bytes (the text
// kernels index characters with int32, as ICU does); otherwise
// InvalidArgument naming string `index` of its tensor and the byte offset of
// the first bad sequence (or the size).
Status CheckUtf8(std::string_view bytes, int64_t index);

// True when every byte is ASCII (below 0x80): such text is well-formed and
// its characters are its bytes.
bool IsAscii(std::string_view bytes);

}  // namespace sluice

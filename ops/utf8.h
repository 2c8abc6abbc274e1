// UTF-8 checks for the text kernels (ops/text_split.h, ops/text_normalize.h,
// ops/wordpiece.h): they work on characters, so ill-formed bytes are an
// error rather than guessed at.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

// OK when `bytes` is well-formed UTF-8 of at most 2^31 - 1 bytes (the text
// kernels index characters with int32, as ICU does); otherwise
// InvalidArgument naming string `index` of its tensor and the byte offset of
// the first bad sequence (or the size).
Status CheckUtf8(std::string_view bytes, int64_t index);

// True when every byte is ASCII (below 0x80): such text is well-formed and
// its characters are its bytes.
bool IsAscii(std::string_view bytes);

}  // namespace sluice

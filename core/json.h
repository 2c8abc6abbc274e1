// Writing JSON text: strings from arbitrary bytes, and numbers that JSON
// cannot spell. Shared by every JSON writer (Element/Tensor JSON, the
// profiler's report, the CLI) so that all emit the same, valid JSON.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace sluice {

// Appends `bytes` as a quoted JSON string. Valid UTF-8 passes through as is;
// '"' and '\' are escaped, control characters (U+0000-U+001F, U+007F) are
// written as \u00XX. A byte that is not part of valid UTF-8 (a stray
// continuation byte, a truncated, overlong or surrogate sequence) is written
// as the lone surrogate \uDC80-\uDCFF (byte 0x80-0xFF), Python's
// "surrogateescape": no valid UTF-8 text decodes to a lone surrogate, so the
// escape is unambiguous and the bytes come back with
// s.encode("utf-8", "surrogateescape").
void AppendJsonString(std::string& out, std::string_view bytes);
std::string JsonString(std::string_view bytes);

// Appends a floating-point value as a JSON number (%.9g, enough for float32)
// or, since JSON has no NaN or infinities, as the string "nan", "inf" or
// "-inf".
void AppendJsonFloat(std::string& out, double value);

}  // namespace sluice

#include "sluice/core/json.h"

#include <cmath>
#include <cstdint>
#include <cstdio>

namespace sluice {
namespace {

// The length of the valid UTF-8 sequence at the start of `s`, or 0 if
// it does not start with one (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF).
size_t Utf8SequenceLength(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const auto continuation = [&](size_t i) { return i < s.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0 && byte(1) < 0xA0) return 0;   // overlong
    if (lead == 0xED && byte(1) >= 0xA0) return 0;  // U+D800-U+DFFF
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0 && byte(1) < 0x90) return 0;   // overlong
    if (lead == 0xF4 && byte(1) >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

void AppendEscape(std::string& out, unsigned code) {
  char escaped[8];
  std::snprintf(escaped, sizeof(escaped), "\\u%04x", code);
  out += escaped;
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view bytes) {
  out += '"';
  for (size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c < 0x20 || c == 0x7f) {
      AppendEscape(out, c);
      ++i;
    } else if (const size_t length = Utf8SequenceLength(bytes.substr(i)); length > 0) {
      out.append(bytes.substr(i, length));
      i += length;
    } else {
      AppendEscape(out, 0xDC00 + c);
      ++i;
    }
  }
  out += '"';
}

std::string JsonString(std::string_view bytes) {
  std::string out;
  AppendJsonString(out, bytes);
  return out;
}

void AppendJsonFloat(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "\"nan\"";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"inf\"" : "\"-inf\"";
  } else {
    char text[32];
    std::snprintf(text, sizeof(text), "%.9g", value);
    out += text;
  }
}

}  // namespace sluice

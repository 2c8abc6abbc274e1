#include "sluice/ops/utf8.h"

#include <unicode/utf8.h>

#include <cstring>

namespace sluice {

Status CheckStrings(std::string_view kernel, const Tensor& t) {
  if (t.dtype() == DType::kString) return OkStatus();
  return InvalidArgumentError(kernel, ": expected strings, got ", t.dtype(), t.shape());
}

Status CheckUtf8(std::string_view bytes, int64_t index) {
  if (bytes.size() > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgumentError("string ", index, " has ", bytes.size(), " bytes; text kernels take at most 2^31 - 1");
  }
  if (IsAscii(bytes)) return OkStatus();
  const auto* s = reinterpret_cast<const uint8_t*>(bytes.data());
  const int32_t length = static_cast<int32_t>(bytes.size());
  for (int32_t i = 0; i < length;) {
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(s, i, length, c);
    if (c < 0) return InvalidArgumentError("string ", index, " is not valid UTF-8: bad byte sequence at byte offset ", start);
  }
  return OkStatus();
}

bool IsAscii(std::string_view bytes) {
  uint64_t bits = 0;
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    bits |= word;
  }
  for (; i < bytes.size(); ++i) bits |= static_cast<uint8_t>(bytes[i]);
  return (bits & 0x8080808080808080ULL) == 0;
}

}  // namespace sluice

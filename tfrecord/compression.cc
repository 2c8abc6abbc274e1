#include "sluice/tfrecord/compression.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "sluice/tfrecord/record_format.h"

namespace sluice {

Result<Compression> ParseCompression(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (upper.empty() || upper == "NONE") return Compression::kNone;
  if (upper == "ZLIB") return Compression::kZlib;
  if (upper == "GZIP") return Compression::kGzip;
  return InvalidArgumentError(
      StrCat("Unknown compression '", name, "': expected \"\", NONE, ZLIB or GZIP"));
}

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return "NONE";
    case Compression::kZlib:
      return "ZLIB";
    case Compression::kGzip:
      return "GZIP";
  }
  return "?";
}

Compression DetectCompression(std::span<const uint8_t> head) {
  if (head.size() >= record_format::kHeaderSize &&
      record_format::LengthCrcMatches(head.data())) {
    return Compression::kNone;
  }
  if (head.size() >= 2 && head[0] == 0x1f && head[1] == 0x8b) return Compression::kGzip;
  // zlib (RFC 1950): method 8 (deflate), window <= 32 KiB, header check.
  if (head.size() >= 2 && (head[0] & 0x0f) == 8 && (head[0] >> 4) <= 7 &&
      ((head[0] << 8) | head[1]) % 31 == 0) {
    return Compression::kZlib;
  }
  return Compression::kNone;
}

}  // namespace sluice

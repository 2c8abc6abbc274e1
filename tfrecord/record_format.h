// The TFRecord format, byte-compatible with TensorFlow's.
//
// A file is a sequence of records with no file header, magic number or
// index. Each record is
//
//   offset   size     content
//   0        8        length: uint64, little-endian, the number of data bytes
//   8        4        masked CRC-32C of the 8 length bytes, uint32 little-endian
//   12       length   data
//   12+len   4        masked CRC-32C of the data, uint32 little-endian
//
// so a record costs 16 bytes over its data; a zero-length record is legal.
// CRCs are masked as tfrecord/crc32c.h explains. With ZLIB or GZIP
// compression the whole file is one compressed stream and the records are
// framed inside the decompressed bytes; offsets in errors are then offsets
// in the decompressed stream.
//
// What a damaged file means (RecordReader):
// - a file that ends exactly at a record boundary ends cleanly;
// - a file that ends inside a 12-byte header is a DataLoss "truncated
//   header" error. TensorFlow treats this case as a clean end of file; we
//   don't, because it silently drops a record that a writer started (a cut
//   copy, a writer that died). A reader policy (RecordReader::Recover, the
//   dataset's corrupt-record policy) turns it into an end of file;
// - a header whose length CRC fails is "length CRC mismatch": the length
//   can't be trusted, so the next record can only be found by scanning;
// - a complete header followed by too few bytes is "truncated data" or
//   "truncated footer";
// - a data CRC that fails is "data CRC mismatch"; the length was verified,
//   so the next record is found where the header says.
// A verified length is still bounded: a reader takes records of at most
// max_record_bytes (tfrecord/record_reader.h), so a length that passes its
// CRC by chance (random bytes do once in 2^32 offsets) or a writer's
// absurd one can't make it buffer more.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "sluice/core/status.h"
#include "sluice/tfrecord/crc32c.h"

namespace sluice::record_format {

inline constexpr size_t kHeaderSize = 12;
inline constexpr size_t kFooterSize = 4;

inline uint32_t LoadU32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);  // little-endian hosts only (x86-64, aarch64)
  return v;
}
inline uint64_t LoadU64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

// "0x1a2b3c4d", for CRCs in messages.
inline std::string Hex32(uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof(text), "0x%08x", value);
  return text;
}

// Writes the 12-byte header of a record of `length` data bytes.
inline void EncodeHeader(uint64_t length, uint8_t* out) {
  std::memcpy(out, &length, 8);
  const uint32_t masked = crc32c::Mask(crc32c::Value(out, 8));
  std::memcpy(out + 8, &masked, 4);
}

// Writes the 4-byte footer of `data`.
inline void EncodeFooter(const void* data, size_t size, uint8_t* out) {
  const uint32_t masked = crc32c::Mask(crc32c::Value(data, size));
  std::memcpy(out, &masked, 4);
}

// True when a 12-byte header's length CRC matches (cheap: for scans).
inline bool LengthCrcMatches(const uint8_t* header) {
  return crc32c::Unmask(LoadU32(header + 8)) == crc32c::Value(header, 8);
}

// The data length a 12-byte header declares, or DataLoss (no context: the
// reader adds file and offset) when its length CRC fails.
inline Result<uint64_t> DecodeHeader(const uint8_t* header) {
  if (!LengthCrcMatches(header)) {
    const uint32_t expected = crc32c::Unmask(LoadU32(header + 8));
    const uint32_t actual = crc32c::Value(header, 8);
    return DataLossError(
        StrCat("length CRC mismatch (stored ", Hex32(expected), ", computed ", Hex32(actual), ")"));
  }
  return LoadU64(header);
}

}  // namespace sluice::record_format

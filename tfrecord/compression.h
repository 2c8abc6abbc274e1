// The compression of a TFRecord file. The whole file is one zlib stream
// (records are framed inside the decompressed bytes), so a compressed file
// can only be read from its start: ZLIB has a zlib header (window bits 15),
// GZIP a gzip header (window bits 31), as TensorFlow writes them.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

enum class Compression { kNone, kZlib, kGzip };

// "" or "NONE", "ZLIB", "GZIP" (any case), as tf.data's compression_type.
Result<Compression> ParseCompression(std::string_view name);
std::string_view CompressionName(Compression compression);  // "NONE", "ZLIB", "GZIP"

// Guesses a file's compression from its first bytes (16 or more for a sure
// answer): a valid TFRecord header (its length CRC matches) means NONE, then
// the gzip magic number, then a valid zlib header; NONE otherwise.
Compression DetectCompression(std::span<const uint8_t> head);

}  // namespace sluice

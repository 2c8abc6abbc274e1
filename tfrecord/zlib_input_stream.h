// Decompresses a ZLIB or GZIP stream (tfrecord/compression.h) read from
// another InputStream, streaming: memory stays at two buffers whatever the
// file size. Concatenated gzip members are read one after another, as
// gunzip does. Corrupt compressed data is a DataLoss error naming the
// stream and the compressed byte offset; bytes after the last complete
// member that don't make another (trailing garbage, which gunzip ignores
// with a warning) are a DataLoss error naming where they start. Either
// comes after every byte decompressed before it.
// Thread safety: a stream is used by one thread at a time.
#pragma once

#include <memory>

#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/input_stream.h"

namespace sluice {

// REQUIRES: compression != kNone. `input_buffer_size` bytes of compressed
// input are read at a time (TensorFlow's default: 256 KiB).
std::unique_ptr<InputStream> MakeZlibInputStream(std::unique_ptr<InputStream> compressed,
                                                 Compression compression,
                                                 size_t input_buffer_size = 256 << 10);

}  // namespace sluice

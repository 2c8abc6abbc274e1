// Compresses into a ZLIB or GZIP stream (tfrecord/compression.h) written to
// another OutputStream, with TensorFlow's settings (deflate, window bits 15,
// +16 for GZIP, memory level 9, default strategy). Flush emits a zlib sync
// flush, so everything written so far can be decompressed; Close finishes the
// stream.
// Thread safety: a stream is used by one thread at a time.
#pragma once

#include <memory>

#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/output_stream.h"

namespace sluice {

// REQUIRES: compression != kNone. `level`: zlib's 0-9, or -1 for its default (6).
std::unique_ptr<OutputStream> MakeZlibOutputStream(std::unique_ptr<OutputStream> sink,
                                                   Compression compression, int level = -1);

}  // namespace sluice

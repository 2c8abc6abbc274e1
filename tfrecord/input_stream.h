// Sources of bytes for the TFRecord reader: a file (read(2), no buffering of
// its own: the reader buffers), a block of memory (tests, fuzzing), and a
// zlib/gzip decompressor over another stream (tfrecord/zlib_input_stream.h).
// Thread safety: a stream is used by one thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `size` bytes into `out`; fewer only at the end of the
  // stream (0 = the end). Errors name the stream.
  virtual Result<size_t> Read(void* out, size_t size) = 0;
  // The file name, or a description of the stream, for messages.
  virtual const std::string& name() const = 0;
  // Passes over up to `size` bytes; fewer only at the end of the stream.
  // Returns how many. Default: reads them into a scratch buffer (a
  // decompressor has no other way); a file seeks.
  virtual Result<uint64_t> Skip(uint64_t size);
};

// Opens `path` for reading; NotFound / PermissionDenied-like errors name it,
// and so does the InvalidArgument error for a directory.
Result<std::unique_ptr<InputStream>> OpenFileInputStream(const std::string& path);

// Reads `bytes`, which must outlive the stream.
std::unique_ptr<InputStream> MakeMemoryInputStream(std::string_view bytes, std::string name);

}  // namespace sluice

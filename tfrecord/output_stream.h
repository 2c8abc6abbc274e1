// Sinks of bytes for the TFRecord writer: a buffered file, a string (tests),
// and a zlib/gzip compressor over another stream
// (tfrecord/zlib_output_stream.h).
// Thread safety: a stream is used by one thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "sluice/core/status.h"

namespace sluice {

class OutputStream {
 public:
  virtual ~OutputStream() = default;
  virtual Status Write(const void* data, size_t size) = 0;
  // Hands everything written so far to the operating system (a reader
  // opening the file then sees whole records).
  virtual Status Flush() = 0;
  // Flushes and releases the file; no writes after it.
  virtual Status Close() = 0;
  virtual const std::string& name() const = 0;
};

// Creates or truncates `path`; writes are buffered in `buffer_size` bytes.
Result<std::unique_ptr<OutputStream>> OpenFileOutputStream(const std::string& path,
                                                           size_t buffer_size = 256 << 10);

// Appends to `*out`, which must outlive the stream.
std::unique_ptr<OutputStream> MakeStringOutputStream(std::string* out, std::string name);

}  // namespace sluice

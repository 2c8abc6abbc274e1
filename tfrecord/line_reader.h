// LineReader: the lines of a text file (decompressed when it is ZLIB or
// GZIP), as tf.data's TextLineDataset reads them: a line ends at '\n',
// which is not part of it; every '\r' is dropped, not only one before the
// '\n' ("a\r\n" and "a\rb\n" give "a" and "ab"); the last line needs no
// '\n', and is dropped when it is empty once its '\r's are gone. Lines are
// handed out as views of the read chunk (tfrecord/chunked_input.h) with a
// reference to it, many to a call: no copy, no allocation per line.
//
// A line's length is bounded: a line of more than max_line_bytes bytes
// ('\r's included) is a DataLoss error naming the file, the line's index
// (0-based) and byte offset, and the limit; reading goes on at the next
// line, and the long line's bytes are passed over without being buffered.
// The read buffer grows past buffer_size only while a line longer than it
// is read, charged to options.charge; a refused charge is that line's
// error (ResourceExhausted), and reading goes on at the next. A read error (of the file, or of
// corrupt compressed data) comes after the lines before it and ends the
// file.
// Thread safety: a reader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/buffer.h"
#include "sluice/tfrecord/chunked_input.h"

namespace sluice {

struct LineReaderOptions {
  static constexpr uint64_t kDefaultMaxLineBytes = uint64_t{256} << 20;  // 256 MiB

  Compression compression = Compression::kNone;
  size_t buffer_size = 256 << 10;  // bytes, >= 1
  uint64_t max_line_bytes = kDefaultMaxLineBytes;
  // As ChunkedInputOptions::charge: the read buffer's growth for a long line.
  std::function<Status(int64_t bytes)> charge;
};

class LineReader {
 public:
  static Result<std::unique_ptr<LineReader>> Open(const std::string& path, LineReaderOptions options = {});
  static std::unique_ptr<LineReader> FromStream(std::unique_ptr<InputStream> stream, LineReaderOptions options = {});

  // Up to `max` (>= 1) next lines as views, out[0, n), whose bytes *owner
  // keeps alive (assigned only when it doesn't already hold their chunk).
  // Returns n; 0 at the end of the file. An error is returned when no line
  // comes before it.
  Result<size_t> ReadLines(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner);

  // Where reading stands: the next line.
  ItemPosition position() const { return {input_->offset(), line_index_}; }
  // Moves a fresh reader to `position` (a compressed file is decompressed up
  // to it). REQUIRES: nothing read yet.
  Status Seek(const ItemPosition& position);
  const std::string& name() const { return input_->name(); }

 private:
  LineReader(std::unique_ptr<ChunkedInput> input, uint64_t max_line_bytes);

  // The error for the line at the reader's position: `length` bytes, or
  // more when it is not `whole` (its '\n' is not buffered yet).
  Status TooLong(uint64_t length, bool whole) const;
  // Passes over the rest of a long line, up to and with its '\n'.
  Status SkipLongLine();

  const std::unique_ptr<ChunkedInput> input_;
  const uint64_t max_line_bytes_;
  int64_t line_index_ = 0;
  bool skipping_ = false;  // in a long line, after its error
  bool ended_ = false;     // a read error ended the file
};

}  // namespace sluice

// Writes TFRecord files (tfrecord/record_format.h) that TensorFlow reads:
// each record framed with its length, masked CRCs and data, optionally
// inside one ZLIB or GZIP stream.
// Thread safety: a writer is used by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/output_stream.h"

namespace sluice {

struct RecordWriterOptions {
  Compression compression = Compression::kNone;
  // zlib's level, 0 (store) to 9 (smallest); -1 is zlib's default, 6.
  int compression_level = -1;
  // Bytes buffered before a write to the file.
  size_t buffer_size = 256 << 10;
};

class RecordWriter {
 public:
  // Creates or truncates `path`.
  static Result<std::unique_ptr<RecordWriter>> Open(const std::string& path,
                                                    RecordWriterOptions options = {});
  // Writes into `sink` (compressing when options.compression says so).
  static std::unique_ptr<RecordWriter> FromStream(std::unique_ptr<OutputStream> sink,
                                                  RecordWriterOptions options = {});
  // Closes the file if Close wasn't called (errors are then lost: call Close).
  ~RecordWriter();

  Status WriteRecord(std::string_view data);
  // Makes every record written so far readable by another reader of the file
  // (for compressed files, at the cost of a zlib sync flush).
  Status Flush();
  // Finishes the compressed stream and closes the file.
  Status Close();

  int64_t records_written() const { return records_written_; }

 private:
  explicit RecordWriter(std::unique_ptr<OutputStream> sink) : sink_(std::move(sink)) {}

  const std::unique_ptr<OutputStream> sink_;
  int64_t records_written_ = 0;
  bool closed_ = false;
};

}  // namespace sluice

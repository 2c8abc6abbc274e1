// FixedLengthRecordReader: the records of a binary file of fixed-length
// records (decompressed when it is ZLIB or GZIP), as tf.data's
// FixedLengthRecordDataset reads them: header_bytes skipped at the start,
// footer_bytes at the end, and record_bytes per record in between (CIFAR-10's
// binary files are 3073-byte records; MNIST's IDX files have a 16-byte
// header and 784-byte records). Records are handed out as views of the read
// chunk (tfrecord/chunked_input.h) with a reference to it, many to a call.
//
// The body between header and footer must be a whole number of records: a
// file that is not is an InvalidArgument error naming the file, its size
// and the three lengths, as tf.data's. An uncompressed file opened by path
// is checked against its size before its first record; otherwise (a
// compressed file, whose size is known only at its end, or a file that
// changed while read) the error comes after the file's whole records. The
// read buffer grows past buffer_size only as far as one record and the
// footer need, charged to options.charge; a refused charge ends the file
// with a ResourceExhausted error.
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

struct FixedLengthRecordReaderOptions {
  uint64_t record_bytes = 1;  // >= 1
  uint64_t header_bytes = 0;
  uint64_t footer_bytes = 0;
  Compression compression = Compression::kNone;
  size_t buffer_size = 256 << 10;  // bytes, >= 1
  // As ChunkedInputOptions::charge: the read buffer's growth for a record
  // and the footer larger than buffer_size.
  std::function<Status(int64_t bytes)> charge;
};

class FixedLengthRecordReader {
 public:
  static Result<std::unique_ptr<FixedLengthRecordReader>> Open(const std::string& path,
                                                               FixedLengthRecordReaderOptions options);
  static std::unique_ptr<FixedLengthRecordReader> FromStream(std::unique_ptr<InputStream> stream,
                                                             FixedLengthRecordReaderOptions options);

  // Up to `max` (>= 1) next records as views, out[0, n), whose bytes *owner
  // keeps alive (assigned only when it doesn't already hold their chunk).
  // Returns n; 0 at the end of the file. An error ends the file.
  Result<size_t> ReadRecords(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner);

  // Where reading stands: the next record.
  ItemPosition position() const { return {input_->offset(), record_index_}; }
  // Moves a fresh reader to `position`, which must be the start of a record
  // (a compressed file is decompressed up to it). REQUIRES: nothing read yet.
  Status Seek(const ItemPosition& position);
  const std::string& name() const { return input_->name(); }

 private:
  FixedLengthRecordReader(std::unique_ptr<ChunkedInput> input, const FixedLengthRecordReaderOptions& options);

  // Passes over the header.
  Status PassHeader();

  const std::unique_ptr<ChunkedInput> input_;
  const uint64_t record_bytes_;
  const uint64_t header_bytes_;
  const uint64_t footer_bytes_;
  int64_t record_index_ = 0;
  bool header_passed_ = false;
  bool ended_ = false;  // the end of the file, or an error, was returned
};

// InvalidArgument, naming `file`, unless a file of `file_bytes` bytes holds
// a header, a whole number of records and a footer of these lengths.
Status CheckFixedLengthRecordFileSize(const std::string& file, uint64_t file_bytes, uint64_t record_bytes,
                                      uint64_t header_bytes, uint64_t footer_bytes);

}  // namespace sluice

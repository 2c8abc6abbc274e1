// CsvReader: the records of a CSV file (decompressed when it is ZLIB or
// GZIP), split into fields as tf.data's CsvDataset splits them (RFC 4180):
// - a record ends at '\n', '\r' or "\r\n", or at the end of the file; a
//   file's last record needs no line break, and a line break at the very end
//   starts no record; an empty line is a record of one empty field;
// - fields are separated by `field_delim`;
// - with use_quote_delim, a field that starts with '"' is quoted: it ends at
//   a '"' followed by the delimiter, a line break or the end of the file,
//   may hold delimiters and line breaks, and holds '"' as "" (given back as
//   one '"'); a field that does not start with '"' may not hold one.
//   Without it, '"' is an ordinary byte.
// Fields are handed out as views of the read chunk (unescaped in place),
// valid as long as the reference ReadRecord gives with them.
//
// Damage is a DataLoss error naming the file, the record's index (0-based,
// damaged records counted) and byte offset, and what is wrong: a quote in
// an unquoted field, a quote in a quoted field that is not doubled, a quoted
// field the file ends in, more than max_fields fields. Reading goes on at
// the next record. A record of
// more than max_record_bytes bytes is a DataLoss error too, and ends the
// file: its end can't be found without buffering it. A read error comes
// after the records before it and ends the file.
// Thread safety: a reader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/buffer.h"
#include "sluice/tfrecord/chunked_input.h"

namespace sluice {

struct CsvReaderOptions {
  static constexpr uint64_t kDefaultMaxRecordBytes = uint64_t{256} << 20;  // 256 MiB

  Compression compression = Compression::kNone;
  size_t buffer_size = 256 << 10;  // bytes, >= 1
  char field_delim = ',';          // not '"', '\n' or '\r'
  bool use_quote_delim = true;
  uint64_t max_record_bytes = kDefaultMaxRecordBytes;
  // The most fields a record may have: past it the record is damage, and
  // no more of its fields are kept.
  size_t max_fields = size_t{1} << 16;
  // As ChunkedInputOptions::charge: the read buffer's growth for a long record.
  std::function<Status(int64_t bytes)> charge;
};

class CsvReader {
 public:
  static Result<std::unique_ptr<CsvReader>> Open(const std::string& path, CsvReaderOptions options = {});
  static std::unique_ptr<CsvReader> FromStream(std::unique_ptr<InputStream> stream, CsvReaderOptions options = {});

  // Replaces *fields with the next record's fields, views whose bytes
  // *owner keeps alive (assigned only when it doesn't already hold their
  // chunk). False at the end of the file.
  Result<bool> ReadRecord(std::vector<std::string_view>* fields, std::shared_ptr<const Buffer>* owner);

  // The byte offset and index of the record last returned or reported.
  uint64_t record_offset() const { return record_offset_; }
  int64_t record_index() const { return record_index_; }

  // Where reading stands: the next record.
  ItemPosition position() const { return {input_->offset(), record_index_ + 1}; }
  // Moves a fresh reader to `position` (a compressed file is decompressed up
  // to it). REQUIRES: nothing read yet.
  Status Seek(const ItemPosition& position);
  const std::string& name() const { return input_->name(); }

 private:
  // Where a field lies in the unread bytes, before unescaping.
  struct FieldSpan {
    size_t begin;
    size_t end;
    bool quoted;  // [begin, end) holds the quotes
  };
  // What scanning the unread bytes for a record found.
  enum class Scan { kRecord, kNeedMore, kError };

  CsvReader(std::unique_ptr<ChunkedInput> input, const CsvReaderOptions& options);

  // Finds the record at the start of the unread bytes: its fields in
  // spans_ and its length (line break included) in *length. kNeedMore when
  // it may run past them (`at_end`: the stream has ended, so it doesn't);
  // kError, with *error, for damage (its length still set).
  Scan ScanRecord(bool at_end, size_t* length, std::string* error);
  Status Damage(std::string_view what) const;

  const std::unique_ptr<ChunkedInput> input_;
  const char delim_;
  const bool use_quote_delim_;
  const uint64_t max_record_bytes_;
  const size_t max_fields_;
  std::vector<FieldSpan> spans_;
  uint64_t record_offset_ = 0;
  int64_t record_index_ = -1;
  bool at_end_ = false;  // the stream has ended: what is unread is all there is
  bool ended_ = false;   // nothing more will be read
};

}  // namespace sluice

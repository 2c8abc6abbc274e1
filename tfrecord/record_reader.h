// Reads the records of one TFRecord file (format and damage semantics in
// tfrecord/record_format.h), verifying both CRCs of every record.
//
// Reading is sequential through a read buffer, a "chunk" of buffer_size
// bytes. A record that fits in it is checked in place and then either
// copied out (ReadRecord(std::string*)) or handed out as a view of the
// chunk with a reference to it (ReadRecord(std::string_view*, owner)): no
// copy, and the view stays valid as long as the reference, after the
// reader is gone too. A chunk that has handed out a view is never written
// while one may remain: the next refill moves the few unread bytes to
// another chunk, the one before if the reader holds its last reference
// (its views are gone), a fresh one otherwise. So a reader whose views die
// soon alternates between two chunks, which stay in cache, and holders
// decide how long each lives (Tensor::Unpinned is the policy for
// long-lived ones). A record larger
// than the chunk is read into a block of its own, grown as its bytes
// arrive, so a damaged length can't allocate more than the file holds.
// Compressed files are decompressed as a stream.
//
// Errors are DataLoss and name the file, the record index (0-based, counting
// damaged records too), the byte offset of the record (in the decompressed
// stream for ZLIB/GZIP) and the check that failed. A reader stays usable
// after an error, resuming after the damage:
// - data CRC mismatch: at the next record (its length was verified);
// - length CRC mismatch: at the next offset holding a header whose length CRC
//   is valid, found by scanning byte by byte (bytes_skipped() counts them);
// - truncated header, data or footer: at the end of the file;
// - corrupt compressed data or a failed read: at the end of the file.
// Thread safety: a reader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/buffer.h"
#include "tfrecord/compression.h"
#include "tfrecord/input_stream.h"

namespace sluice {

struct RecordReaderOptions {
  Compression compression = Compression::kNone;
  // Bytes buffered between the file and the records (TensorFlow's default,
  // 256 KiB); 0 reads with no more buffering than a record header needs.
  size_t buffer_size = 256 << 10;
};

class RecordReader {
 public:
  static Result<std::unique_ptr<RecordReader>> Open(const std::string& path,
                                                    RecordReaderOptions options = {});
  // Reads from `stream` (already open); decompresses it when
  // options.compression says so.
  static std::unique_ptr<RecordReader> FromStream(std::unique_ptr<InputStream> stream,
                                                  RecordReaderOptions options = {});

  // Replaces *record with the next record's data. False at the end of the
  // file; DataLoss for a damaged record (see the file comment).
  Result<bool> ReadRecord(std::string* record);
  // The same without a copy: *record views the next record's data, which
  // *owner keeps alive (the chunk, or the record's own block). *owner is
  // only assigned when it doesn't already hold that block, so a caller that
  // keeps it across calls pays no reference counting per record.
  Result<bool> ReadRecord(std::string_view* record, std::shared_ptr<const Buffer>* owner);

  // Where reading stands, to resume later with a fresh reader of the same
  // file (iterator checkpointing).
  enum class State { kReading, kResynchronizing, kEnded };
  struct Position {
    uint64_t offset = 0;        // of the next byte to read (decompressed, for ZLIB/GZIP)
    int64_t record_index = -1;  // of the record last returned or reported
    State state = State::kReading;
  };
  Position position() const { return {position_, record_index_, state_}; }
  // Moves a fresh reader to `position`: an uncompressed file seeks; a
  // compressed one is decompressed up to it (there is no other way in a
  // zlib stream). DataLoss if the file is shorter than the offset.
  // REQUIRES: nothing read yet.
  Status Seek(const Position& position);

  // The byte offset and index of the record last returned or reported.
  uint64_t record_offset() const { return record_offset_; }
  int64_t record_index() const { return record_index_; }
  // Bytes passed over while looking for a header after a length CRC mismatch.
  uint64_t bytes_skipped() const { return bytes_skipped_; }
  const std::string& name() const { return stream_->name(); }

 private:
  RecordReader(std::unique_ptr<InputStream> stream, RecordReaderOptions options);

  // Makes at least `size` bytes available from begin_, unless the stream
  // ends first. REQUIRES: size <= buffer_size_.
  Status Fill(size_t size);
  size_t available() const { return end_ - begin_; }
  uint8_t* buffer() const { return static_cast<uint8_t*>(chunk_->data()); }
  // stream_->Read; an error ends the file.
  Result<size_t> ReadStream(void* out, size_t size);
  void Consume(size_t size) {
    begin_ += size;
    position_ += size;
  }
  // The next record, checked, viewed in the chunk or in large_record_.
  Result<bool> ReadRecordView(std::string_view* record);
  // Reads `size` bytes of a record's data into *data: in the chunk, or for a
  // record larger than it in large_record_; false if the file ends first.
  Result<bool> ReadData(uint64_t size, std::string_view* data);
  Result<bool> ReadLargeData(uint64_t size, std::string_view* data);
  // Scans forward to the next offset with a valid header (after a length
  // CRC mismatch).
  Status Resynchronize();
  Status Damage(std::string_view what) const;
  Status DataCrcMismatch(uint32_t expected, uint32_t actual, uint64_t length) const;

  const std::unique_ptr<InputStream> stream_;
  const bool compressed_;
  const size_t buffer_size_;
  std::shared_ptr<Buffer> chunk_;  // buffer_size_ bytes, not zero-filled: only read bytes are used
  bool chunk_shared_ = false;      // views of chunk_ were handed out: never write it again
  std::shared_ptr<Buffer> spare_;  // the chunk before chunk_, reused once its views are gone
  size_t begin_ = 0;               // unread bytes are buffer()[begin_, end_)
  size_t end_ = 0;
  bool stream_ended_ = false;
  uint64_t position_ = 0;  // stream offset of buffer()[begin_]
  std::shared_ptr<Buffer> large_record_;  // the last record larger than a chunk

  State state_ = State::kReading;
  uint64_t record_offset_ = 0;
  int64_t record_index_ = -1;
  uint64_t bytes_skipped_ = 0;
};

}  // namespace sluice

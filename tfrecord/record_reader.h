// Reads the records of one TFRecord file (format and damage semantics in
// tfrecord/record_format.h), verifying both CRCs of every record.
//
// Reading is sequential through a read buffer, a "chunk". A record that
// fits in it is checked in place and then either copied out
// (ReadRecord(std::string*)) or handed out as a view of the chunk with a
// reference to it (ReadRecord(std::string_view*, owner)): no copy, and the
// view stays valid as long as the reference, after the reader is gone too.
// A chunk that has handed out a view is never written while one may remain:
// the next refill moves the few unread bytes to another chunk, the one
// before if the reader holds its last reference (its views are gone), a
// fresh one otherwise. So a reader whose views die soon alternates between
// two chunks, which stay in cache, and holders decide how long each lives
// (Tensor::Unpinned is the policy for long-lived ones). Chunks grow on
// demand: the first is small (kFirstChunkSize), and each refill that the
// stream filled to the end doubles the next, up to buffer_size; so a small
// file never costs a large buffer. Growth past kFirstChunkSize is charged
// to options.charge; without room the chunk stays as it is (one record
// that needs more still gets it).
//
// A record's declared length is untrusted until its length CRC passes, and
// bounded after: a length over max_record_bytes is an error before anything
// is buffered (the record is then skipped, its length being verified). A
// record larger than the chunk is first charged to options.charge (a
// pipeline's RAM budget) at its declared length, then read into a block of
// its own that grows as its bytes arrive, so a damaged length can't
// allocate more than the file holds.
// Compressed files are decompressed as a stream. Every chunk and block
// knows where its bytes were read (Buffer::Origin), so a record's origin can
// be named later, wherever its view went (RecordOrigin below), at no cost
// per record.
//
// Errors name the file, the record index (0-based, counting damaged records
// too), the byte offset of the record (in the decompressed stream for
// ZLIB/GZIP) and the check that failed: DataLoss for damage and for a
// length over max_record_bytes, ResourceExhausted when the charge is
// refused. A reader stays usable after an error, resuming after the damage:
// - data CRC mismatch, a length over max_record_bytes, a refused charge: at
//   the next record (its length was verified);
// - length CRC mismatch: at the next offset holding a header whose length CRC
//   is valid, found by scanning byte by byte (bytes_skipped() counts them;
//   a WARNING line says where reading resumed). The scan gives up after
//   max_record_bytes + 16 bytes (no intact record spans more, so a valid
//   file has a record boundary within that distance of any damaged header
//   unless several records in a row are damaged) with a DataLoss error
//   naming the range scanned, and the rest of the file is skipped;
// - truncated header, data or footer: at the end of the file;
// - corrupt compressed data or a failed read: at the end of the file; the
//   error comes after every record read before it.
// Thread safety: a reader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "sluice/core/buffer.h"
#include "sluice/core/tensor.h"
#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/input_stream.h"

namespace sluice {

struct RecordReaderOptions {
  // The default of max_record_bytes: 256 MiB, far above what TensorFlow's
  // writers make in practice (Examples of KBs to a few MBs).
  static constexpr uint64_t kDefaultMaxRecordBytes = uint64_t{256} << 20;

  Compression compression = Compression::kNone;
  // The most bytes buffered between the file and the records (TensorFlow's
  // default, 256 KiB); the read buffer grows to it as the file goes on. 0
  // reads with no more buffering than a record header needs.
  size_t buffer_size = 256 << 10;
  // The largest record, in data bytes, the reader accepts (see the file
  // comment); it also bounds the scan after a length CRC mismatch.
  uint64_t max_record_bytes = kDefaultMaxRecordBytes;
  // Called with +bytes before the reader buffers them and with -bytes when
  // it lets go: a record larger than the read buffer (its declared length,
  // until it has been read or has failed; refused, the record is a
  // ResourceExhausted error whose message ends with the charge's), and the
  // read buffer's growth (until the reader is destroyed; refused, the buffer
  // stops growing). Null: no charge. A pipeline passes its RAM budget
  // (dataset/tfrecord_dataset.cc).
  std::function<Status(int64_t bytes)> charge;
};

class RecordReader {
 public:
  static Result<std::unique_ptr<RecordReader>> Open(const std::string& path,
                                                    RecordReaderOptions options = {});
  // Reads from `stream` (already open); decompresses it when
  // options.compression says so.
  static std::unique_ptr<RecordReader> FromStream(std::unique_ptr<InputStream> stream,
                                                  RecordReaderOptions options = {});
  ~RecordReader();  // releases what it charged

  // Replaces *record with the next record's data. False at the end of the
  // file; DataLoss for a damaged record (see the file comment).
  Result<bool> ReadRecord(std::string* record);
  // The same without a copy: *record views the next record's data, which
  // *owner keeps alive (the chunk, or the record's own block). *owner is
  // only assigned when it doesn't already hold that block, so a caller that
  // keeps it across calls pays no reference counting per record.
  Result<bool> ReadRecord(std::string_view* record, std::shared_ptr<const Buffer>* owner);
  // Up to `max` next records as views, as ReadRecord(record, owner) gives
  // them, for as long as they lie whole in the chunk and pass both CRCs:
  // one call for a run of small records instead of one per record. Returns
  // how many (out[0, n)); 0 when the next record is not such a one (it
  // spans chunks, is damaged, or the file ends): ReadRecord then reads or
  // reports it. record_offset() and record_index() are then the run's last
  // record's.
  size_t ReadRecordsInChunk(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner);

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

  // The first chunk's size, when buffer_size is larger.
  static constexpr size_t kFirstChunkSize = 4 << 10;

  // Makes at least `size` bytes available from begin_, unless the stream
  // ends first. REQUIRES: size <= buffer_size_.
  void Fill(size_t size);
  // The size of the chunk a refill that needs `size` bytes uses; charges
  // its growth.
  size_t NextChunkSize(size_t size);
  size_t available() const { return end_ - begin_; }
  uint8_t* buffer() const { return static_cast<uint8_t*>(chunk_->data()); }
  // stream_->Read; an error ends the stream, and is kept in stream_error_.
  size_t ReadStream(void* out, size_t size);
  // Ends the file where a record is cut short: the stream's error if it
  // ended with one, else the damage `what`.
  Status Ended(std::string_view what);
  void Consume(size_t size) {
    begin_ += size;
    position_ += size;
  }
  // The next record when it lies whole in the chunk and both its CRCs
  // pass: consumed and viewed. False, with nothing consumed, otherwise.
  bool TakeRecordInChunk(std::string_view* record);
  // The next record, checked, viewed in the chunk or in large_record_.
  Result<bool> ReadRecordView(std::string_view* record);
  // Reads `size` bytes of a record's data into *data: in the chunk, or for a
  // record larger than it in large_record_; false if the file ends first.
  bool ReadData(uint64_t size, std::string_view* data);
  bool ReadLargeData(uint64_t size, std::string_view* data);
  // Passes over `size` bytes; false (and the file ends) when it ends first
  // or can't be read.
  bool SkipBytes(uint64_t size);
  // The error for a record whose data is not read (its length is over
  // max_record_bytes, or its charge was refused: `refusal`), after passing
  // over it.
  Status SkipRecord(uint64_t length, const Status& refusal);
  // Scans forward to the next offset with a valid header (after a length
  // CRC mismatch), at most max_scan_bytes_ bytes.
  Status Resynchronize();
  Status Damage(std::string_view what) const;
  Status DataCrcMismatch(uint32_t expected, uint32_t actual, uint64_t length) const;

  const std::unique_ptr<InputStream> stream_;
  const bool compressed_;
  const std::shared_ptr<const std::string> origin_source_;  // Buffer::Origin of chunks and blocks
  const size_t buffer_size_;
  const uint64_t max_record_bytes_;
  const uint64_t max_scan_bytes_;
  const std::function<Status(int64_t)> charge_;
  std::shared_ptr<Buffer> chunk_;  // up to buffer_size_ bytes, not zero-filled: only read bytes are used
  bool chunk_shared_ = false;      // views of chunk_ were handed out: never write it again
  std::shared_ptr<Buffer> spare_;  // the chunk before chunk_, reused once its views are gone
  int64_t chunk_charge_ = 0;       // charged for the chunk's size, once it grew past kFirstChunkSize
  size_t begin_ = 0;               // unread bytes are buffer()[begin_, end_)
  size_t end_ = 0;
  bool stream_ended_ = false;
  Status stream_error_;  // what ended the stream, until it is reported
  uint64_t position_ = 0;  // stream offset of buffer()[begin_]
  std::shared_ptr<Buffer> large_record_;  // the last record larger than a chunk

  State state_ = State::kReading;
  uint64_t record_offset_ = 0;
  int64_t record_index_ = -1;
  uint64_t bytes_skipped_ = 0;
};

// Where `record` was read, for messages about its contents: "the record at
// byte offset N of FILE" (or "of the decompressed stream of FILE") when it
// views the bytes of a RecordReader's chunk or block that `records`, a
// string tensor it is an element of, keeps alive; "" otherwise (its bytes
// were copied).
std::string RecordOrigin(const Tensor& records, std::string_view record);
// `status` about `record` (a string of `records`), with its RecordOrigin
// appended in parentheses when that is known.
Status WithRecordOrigin(const Status& status, const Tensor& records, std::string_view record);

}  // namespace sluice

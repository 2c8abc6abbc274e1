#include "sluice/tfrecord/record_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <utility>

#include "sluice/core/logging.h"
#include "sluice/tfrecord/crc32c.h"
#include "sluice/tfrecord/record_format.h"
#include "sluice/tfrecord/zlib_input_stream.h"

namespace sluice {

using record_format::kFooterSize;
using record_format::kHeaderSize;

namespace {

// A record larger than the chunk grows its block by at most this much (or
// by what it already holds) ahead of the bytes that arrived, so a length
// beyond the end of a truncated file can't allocate more than the file
// holds, give or take a factor of two.
constexpr size_t kLargeRecordStep = 1 << 20;

std::shared_ptr<Buffer> NewBlock(size_t bytes) {
  return Buffer::Allocate(bytes, CpuAllocator(), Buffer::Fill::kUninitialized);
}

// A record with `max_record_bytes` of data spans this many bytes.
uint64_t MaxRecordSpan(uint64_t max_record_bytes) {
  constexpr uint64_t kFraming = kHeaderSize + kFooterSize;
  return max_record_bytes > std::numeric_limits<uint64_t>::max() - kFraming ? std::numeric_limits<uint64_t>::max()
                                                                            : max_record_bytes + kFraming;
}

// Whether the record whose header is at `header` lies whole in the
// `available` bytes from there, declares at most `max_length` bytes of data
// and passes both CRCs; if so, *length is its data length.
inline bool IsWholeCheckedRecord(const uint8_t* header, size_t available, uint64_t max_length,
                                 uint64_t* length) {
  if (available < kHeaderSize + kFooterSize) return false;
  const uint64_t declared = record_format::LoadU64(header);
  if (declared > available - kHeaderSize - kFooterSize || declared > max_length ||
      !record_format::LengthCrcMatches(header)) {
    return false;
  }
  const uint8_t* data = header + kHeaderSize;
  if (crc32c::Unmask(record_format::LoadU32(data + declared)) != crc32c::Value(data, declared)) return false;
  *length = declared;
  return true;
}

}  // namespace

Result<std::unique_ptr<RecordReader>> RecordReader::Open(const std::string& path,
                                                         RecordReaderOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  return FromStream(std::move(stream), options);
}

std::unique_ptr<RecordReader> RecordReader::FromStream(std::unique_ptr<InputStream> stream,
                                                       RecordReaderOptions options) {
  if (options.compression != Compression::kNone) {
    stream = MakeZlibInputStream(std::move(stream), options.compression);
  }
  return std::unique_ptr<RecordReader>(new RecordReader(std::move(stream), options));
}

RecordReader::RecordReader(std::unique_ptr<InputStream> stream, RecordReaderOptions options)
    : stream_(std::move(stream)),
      compressed_(options.compression != Compression::kNone),
      origin_source_(std::make_shared<const std::string>(
          compressed_ ? StrCat("the decompressed stream of ", stream_->name()) : stream_->name())),
      buffer_size_(std::max(options.buffer_size, kHeaderSize + kFooterSize)),
      max_record_bytes_(std::min<uint64_t>(options.max_record_bytes, std::numeric_limits<int64_t>::max())),
      max_scan_bytes_(MaxRecordSpan(options.max_record_bytes)),
      charge_(std::move(options.charge)),
      chunk_(NewBlock(std::min(buffer_size_, kFirstChunkSize))) {}

RecordReader::~RecordReader() {
  if (chunk_charge_ > 0) static_cast<void>(charge_(-chunk_charge_));
}

size_t RecordReader::NextChunkSize(size_t size) {
  const size_t capacity = chunk_->size();
  // A stream that filled the chunk to its end likely has more.
  if (capacity >= size && (end_ < capacity || capacity == buffer_size_)) return capacity;
  const size_t grown = std::min(buffer_size_, std::max(2 * capacity, size));
  if (charge_ == nullptr || grown <= kFirstChunkSize) return grown;
  // Growth is charged; without room the chunk keeps its size (more, smaller
  // reads), unless one record needs more.
  const auto growth = static_cast<int64_t>(grown) - chunk_charge_;
  if (charge_(growth).ok()) {
    chunk_charge_ += growth;
    return grown;
  }
  return std::max(capacity, size);
}

void RecordReader::Fill(size_t size) {
  if (available() >= size || stream_ended_) return;
  // Move the few unread bytes to the front, so that reads stay large: to a
  // fresh chunk when views of this one are out there, or when it grows.
  const size_t capacity = NextChunkSize(size);
  if (chunk_shared_ || capacity != chunk_->size()) {
    std::shared_ptr<Buffer> fresh = std::move(spare_);
    // The spare is free once the reader holds its only reference: no
    // view of it is left, and none can appear. The fence orders the last
    // holder's reads of it before the writes below.
    if (fresh != nullptr && fresh.use_count() == 1 && fresh->size() == capacity) {
      std::atomic_thread_fence(std::memory_order_acquire);
    } else {
      fresh = NewBlock(capacity);
    }
    std::memcpy(fresh->data(), buffer() + begin_, available());
    std::shared_ptr<Buffer> old = std::exchange(chunk_, std::move(fresh));
    if (chunk_shared_) spare_ = std::move(old);  // a chunk nobody views is freed now
    chunk_shared_ = false;
  } else {
    std::memmove(buffer(), buffer() + begin_, available());
  }
  end_ -= begin_;
  begin_ = 0;
  chunk_->set_origin({origin_source_, position_});
  while (available() < size) {
    const size_t n = ReadStream(buffer() + end_, chunk_->size() - end_);
    if (n == 0) {
      stream_ended_ = true;
      break;
    }
    end_ += n;
  }
}

size_t RecordReader::ReadStream(void* out, size_t size) {
  Result<size_t> n = stream_->Read(out, size);
  if (n.ok()) return *n;
  // A broken stream (corrupt compressed data, an I/O error) can't be read
  // past: it ends here, and the error comes after the records before it.
  stream_error_ = n.status();
  return 0;
}

Status RecordReader::Ended(std::string_view what) {
  state_ = State::kEnded;
  if (!stream_error_.ok()) return std::exchange(stream_error_, OkStatus());
  return Damage(what);
}

Status RecordReader::Damage(std::string_view what) const {
  return DataLossError(name(), ": record ", record_index_, " at byte offset ", record_offset_,
                       compressed_ ? " of the decompressed stream" : "", ": ", what,
                       record_offset_ == 0 ? " (Is this even a TFRecord file?)" : "");
}

bool RecordReader::ReadData(uint64_t size, std::string_view* data) {
  if (size > buffer_size_ - kFooterSize) return ReadLargeData(size, data);
  // The footer too: a refill after the data would move the bytes *data views.
  Fill(size + kFooterSize);
  if (available() < size) return false;
  *data = {reinterpret_cast<const char*>(buffer() + begin_), size};
  Consume(size);
  return true;
}

bool RecordReader::ReadLargeData(uint64_t size, std::string_view* data) {
  // What the chunk holds, then straight from the stream into the block.
  const size_t buffered = std::min<uint64_t>(available(), size);
  size_t capacity = std::min<uint64_t>(size, std::max(kLargeRecordStep, buffered));
  const Buffer::Origin origin{origin_source_, position_};
  std::shared_ptr<Buffer> block = NewBlock(capacity);
  block->set_origin(origin);
  std::memcpy(block->data(), buffer() + begin_, buffered);
  Consume(buffered);
  uint64_t done = buffered;
  while (done < size) {
    if (done == capacity) {
      capacity = std::min<uint64_t>(size, done + std::max<uint64_t>(kLargeRecordStep, done));
      std::shared_ptr<Buffer> grown = NewBlock(capacity);
      grown->set_origin(origin);
      std::memcpy(grown->data(), block->data(), done);
      block = std::move(grown);
    }
    const size_t want = capacity - done;
    const size_t n = ReadStream(static_cast<char*>(block->data()) + done, want);
    done += n;
    position_ += n;
    if (n < want) {
      stream_ended_ = true;
      return false;
    }
  }
  *data = {static_cast<const char*>(block->data()), size};
  large_record_ = std::move(block);
  return true;
}

bool RecordReader::SkipBytes(uint64_t size) {
  const size_t buffered = std::min<uint64_t>(available(), size);
  Consume(buffered);
  if (size == buffered) return true;
  Result<uint64_t> skipped = stream_->Skip(size - buffered);
  if (skipped.ok()) position_ += *skipped;
  if (skipped.ok() && *skipped == size - buffered) return true;
  stream_ended_ = true;
  state_ = State::kEnded;
  return false;
}

Status RecordReader::SkipRecord(uint64_t length, const Status& refusal) {
  const bool passed = SkipBytes(length) && SkipBytes(kFooterSize);
  const std::string after = passed ? "; the record is skipped" : "; the file ends before the record does";
  if (!refusal.ok()) {
    return ResourceExhaustedError(name(), ": record ", record_index_, " at byte offset ", record_offset_,
                                  compressed_ ? " of the decompressed stream" : "", ": cannot buffer its ", length,
                                  " data bytes: ", refusal.message(), after);
  }
  return Damage(StrCat("the header declares ", length, " data bytes, more than max_record_bytes (",
                       max_record_bytes_, ")", after));
}

Status RecordReader::Resynchronize() {
  const uint64_t start = position_;
  uint64_t scanned = 0;
  while (true) {
    Fill(kHeaderSize);
    if (available() < kHeaderSize) {
      bytes_skipped_ += available();
      Consume(available());
      state_ = State::kEnded;
      return std::exchange(stream_error_, OkStatus());
    }
    // Every offset of the chunk that has a whole header after it.
    const uint64_t candidates = std::min<uint64_t>(available() - kHeaderSize + 1, max_scan_bytes_ - scanned);
    const uint8_t* at = buffer() + begin_;
    for (uint64_t i = 0; i < candidates; ++i) {
      if (record_format::LengthCrcMatches(at + i)) {
        Consume(i);
        bytes_skipped_ += i;
        state_ = State::kReading;
        SLUICE_LOG(WARNING) << name() << ": resuming at byte offset " << position_
                            << (compressed_ ? " of the decompressed stream" : "") << ", a valid header "
                            << (position_ - start + 1) << " bytes after the damaged one at " << (start - 1);
        return OkStatus();
      }
    }
    Consume(candidates);
    bytes_skipped_ += candidates;
    scanned += candidates;
    if (scanned == max_scan_bytes_) {
      state_ = State::kEnded;
      return DataLossError(name(), ": no valid record header in byte offsets [", start, ", ", position_, ")",
                           compressed_ ? " of the decompressed stream" : "", " after the damaged header at ",
                           start - 1, " (", scanned, " bytes scanned, the limit: max_record_bytes ",
                           max_record_bytes_, " + 16); the rest of the file is skipped");
    }
  }
}

Status RecordReader::Seek(const Position& position) {
  SLUICE_CHECK(position_ == 0 && available() == 0) << "RecordReader::Seek on a reader that has read";
  SLUICE_ASSIGN_OR_RETURN(uint64_t skipped, stream_->Skip(position.offset));
  if (skipped < position.offset) {
    return DataLossError(name(), ": cannot resume reading at byte offset ", position.offset,
                         compressed_ ? " of the decompressed stream" : "", ": the file has only ", skipped, " bytes");
  }
  position_ = position.offset;
  record_index_ = position.record_index;
  state_ = position.state;
  return OkStatus();
}

Result<bool> RecordReader::ReadRecord(std::string* record) {
  std::string_view data;
  SLUICE_ASSIGN_OR_RETURN(bool got, ReadRecordView(&data));
  if (got) record->assign(data);
  large_record_.reset();
  return got;
}

Result<bool> RecordReader::ReadRecord(std::string_view* record, std::shared_ptr<const Buffer>* owner) {
  SLUICE_ASSIGN_OR_RETURN(bool got, ReadRecordView(record));
  if (!got) return false;
  if (large_record_ != nullptr) {
    *owner = std::move(large_record_);
    return true;
  }
  chunk_shared_ = true;
  if (owner->get() != chunk_.get()) *owner = chunk_;
  return true;
}

Status RecordReader::DataCrcMismatch(uint32_t expected, uint32_t actual, uint64_t length) const {
  return Damage(StrCat("data CRC mismatch (stored ", record_format::Hex32(expected), ", computed ",
                       record_format::Hex32(actual), ", ", length, " data bytes)"));
}

size_t RecordReader::ReadRecordsInChunk(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner) {
  if (large_record_ != nullptr) large_record_.reset();
  if (state_ != State::kReading || available() == 0) return 0;
  // The run is split on locals, and the reader's state moved once after it.
  const uint8_t* const chunk = buffer();
  const size_t end = end_;
  size_t begin = begin_, last = begin_;  // of the next record, of the one taken last
  size_t n = 0;
  uint64_t length;
  while (n < max && IsWholeCheckedRecord(chunk + begin, end - begin, max_record_bytes_, &length)) {
    out[n++] = {reinterpret_cast<const char*>(chunk + begin + kHeaderSize), length};
    last = begin;
    begin += kHeaderSize + length + kFooterSize;
  }
  if (n == 0) return 0;
  record_offset_ = position_ + (last - begin_);
  record_index_ += static_cast<int64_t>(n);
  Consume(begin - begin_);
  chunk_shared_ = true;
  if (owner->get() != chunk_.get()) *owner = chunk_;
  return n;
}

bool RecordReader::TakeRecordInChunk(std::string_view* record) {
  uint64_t length;
  if (state_ != State::kReading || available() == 0 ||
      !IsWholeCheckedRecord(buffer() + begin_, available(), max_record_bytes_, &length)) {
    return false;
  }
  record_offset_ = position_;
  ++record_index_;
  *record = {reinterpret_cast<const char*>(buffer() + begin_ + kHeaderSize), length};
  Consume(kHeaderSize + length + kFooterSize);
  return true;
}

Result<bool> RecordReader::ReadRecordView(std::string_view* record) {
  if (large_record_ != nullptr) large_record_.reset();
  // The common case, a whole record in the chunk: checked in place. A
  // damaged one is read again below, which reports it.
  if (TakeRecordInChunk(record)) return true;
  // Otherwise step by step, refilling the chunk as needed.
  if (state_ == State::kResynchronizing) SLUICE_RETURN_IF_ERROR(Resynchronize());
  if (state_ == State::kEnded) return false;

  Fill(kHeaderSize);
  if (available() == 0) {
    state_ = State::kEnded;
    if (!stream_error_.ok()) return std::exchange(stream_error_, OkStatus());
    return false;
  }
  record_offset_ = position_;
  ++record_index_;
  if (available() < kHeaderSize) {
    return Ended(StrCat("truncated header (", available(), " of ", kHeaderSize,
                        " bytes before the end of the file)"));
  }
  Result<uint64_t> length = record_format::DecodeHeader(buffer() + begin_);
  if (!length.ok()) {
    Consume(1);
    ++bytes_skipped_;
    state_ = State::kResynchronizing;
    return Damage(length.status().message());
  }
  Consume(kHeaderSize);
  if (*length > max_record_bytes_) return SkipRecord(*length, OkStatus());
  // A record larger than any chunk is charged before it is buffered.
  const bool charged = charge_ != nullptr && *length > buffer_size_ - kFooterSize;
  if (charged) {
    const Status room = charge_(static_cast<int64_t>(*length));
    if (!room.ok()) return SkipRecord(*length, room);
  }
  const bool complete = ReadData(*length, record);
  if (charged) static_cast<void>(charge_(-static_cast<int64_t>(*length)));  // a release always succeeds
  if (!complete) {
    return Ended(StrCat("truncated data (the header declares ", *length, " bytes; the file ends before them)"));
  }
  Fill(kFooterSize);
  if (available() < kFooterSize) {
    return Ended(StrCat("truncated footer (", available(), " of ", kFooterSize,
                        " bytes of the data CRC before the end of the file)"));
  }
  const uint32_t expected = crc32c::Unmask(record_format::LoadU32(buffer() + begin_));
  Consume(kFooterSize);
  const uint32_t actual = crc32c::Value(record->data(), record->size());
  if (expected != actual) return DataCrcMismatch(expected, actual, *length);
  return true;
}

std::string RecordOrigin(const Tensor& records, std::string_view record) {
  const Buffer::Origin origin = records.OriginOf(record.data());
  if (origin.source == nullptr || origin.offset < kHeaderSize) return "";
  return StrCat("the record at byte offset ", origin.offset - kHeaderSize, " of ", *origin.source);
}

Status WithRecordOrigin(const Status& status, const Tensor& records, std::string_view record) {
  const std::string origin = RecordOrigin(records, record);
  if (origin.empty()) return status;
  return Status(status.code(), StrCat(status.message(), " (", origin, ")"));
}

}  // namespace sluice

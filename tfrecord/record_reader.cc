#include "tfrecord/record_reader.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include "tfrecord/crc32c.h"
#include "tfrecord/record_format.h"
#include "tfrecord/zlib_input_stream.h"

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
      buffer_size_(std::max(options.buffer_size, kHeaderSize + kFooterSize)),
      chunk_(NewBlock(buffer_size_)) {}

Status RecordReader::Fill(size_t size) {
  if (available() >= size || stream_ended_) return OkStatus();
  // Move the few unread bytes to the front, so that reads stay large: to a
  // fresh chunk when views of this one are out there.
  if (chunk_shared_) {
    std::shared_ptr<Buffer> fresh = std::move(spare_);
    // The spare is free once the reader holds its only reference: no
    // view of it is left, and none can appear. The fence orders the last
    // holder's reads of it before the writes below.
    if (fresh != nullptr && fresh.use_count() == 1) {
      std::atomic_thread_fence(std::memory_order_acquire);
    } else {
      fresh = NewBlock(buffer_size_);
    }
    std::memcpy(fresh->data(), buffer() + begin_, available());
    spare_ = std::exchange(chunk_, std::move(fresh));
    chunk_shared_ = false;
  } else {
    std::memmove(buffer(), buffer() + begin_, available());
  }
  end_ -= begin_;
  begin_ = 0;
  while (available() < size) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, ReadStream(buffer() + end_, buffer_size_ - end_));
    if (n == 0) {
      stream_ended_ = true;
      break;
    }
    end_ += n;
  }
  return OkStatus();
}

Result<size_t> RecordReader::ReadStream(void* out, size_t size) {
  Result<size_t> n = stream_->Read(out, size);
  // A broken stream (corrupt compressed data, an I/O error) can't be read
  // past: the file ends after this error.
  if (!n.ok()) state_ = State::kEnded;
  return n;
}

Status RecordReader::Damage(std::string_view what) const {
  return DataLossError(name(), ": record ", record_index_, " at byte offset ", record_offset_,
                       compressed_ ? " of the decompressed stream" : "", ": ", what,
                       record_offset_ == 0 ? " (Is this even a TFRecord file?)" : "");
}

Result<bool> RecordReader::ReadData(uint64_t size, std::string_view* data) {
  if (size > buffer_size_ - kFooterSize) return ReadLargeData(size, data);
  // The footer too: a refill after the data would move the bytes *data views.
  SLUICE_RETURN_IF_ERROR(Fill(size + kFooterSize));
  if (available() < size) return false;
  *data = {reinterpret_cast<const char*>(buffer() + begin_), size};
  Consume(size);
  return true;
}

Result<bool> RecordReader::ReadLargeData(uint64_t size, std::string_view* data) {
  // What the chunk holds, then straight from the stream into the block.
  const size_t buffered = std::min<uint64_t>(available(), size);
  size_t capacity = std::min<uint64_t>(size, std::max(kLargeRecordStep, buffered));
  std::shared_ptr<Buffer> block = NewBlock(capacity);
  std::memcpy(block->data(), buffer() + begin_, buffered);
  Consume(buffered);
  uint64_t done = buffered;
  while (done < size) {
    if (done == capacity) {
      capacity = std::min<uint64_t>(size, done + std::max<uint64_t>(kLargeRecordStep, done));
      std::shared_ptr<Buffer> grown = NewBlock(capacity);
      std::memcpy(grown->data(), block->data(), done);
      block = std::move(grown);
    }
    const size_t want = capacity - done;
    SLUICE_ASSIGN_OR_RETURN(size_t n, ReadStream(static_cast<char*>(block->data()) + done, want));
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

Status RecordReader::Resynchronize() {
  while (true) {
    SLUICE_RETURN_IF_ERROR(Fill(kHeaderSize));
    if (available() < kHeaderSize) {
      bytes_skipped_ += available();
      Consume(available());
      state_ = State::kEnded;
      return OkStatus();
    }
    if (record_format::LengthCrcMatches(buffer() + begin_)) {
      state_ = State::kReading;
      return OkStatus();
    }
    Consume(1);
    ++bytes_skipped_;
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

Result<bool> RecordReader::ReadRecordView(std::string_view* record) {
  if (large_record_ != nullptr) large_record_.reset();
  // The common case, a whole record in the chunk: checked in place.
  if (state_ == State::kReading && available() >= kHeaderSize + kFooterSize) {
    const uint8_t* header = buffer() + begin_;
    const uint64_t length = record_format::LoadU64(header);
    if (length <= available() - kHeaderSize - kFooterSize && record_format::LengthCrcMatches(header)) {
      record_offset_ = position_;
      ++record_index_;
      const uint8_t* data = header + kHeaderSize;
      *record = {reinterpret_cast<const char*>(data), length};
      Consume(kHeaderSize + length + kFooterSize);
      const uint32_t expected = crc32c::Unmask(record_format::LoadU32(data + length));
      const uint32_t actual = crc32c::Value(data, length);
      if (expected != actual) return DataCrcMismatch(expected, actual, length);
      return true;
    }
  }
  // Otherwise step by step, refilling the chunk as needed.
  if (state_ == State::kResynchronizing) SLUICE_RETURN_IF_ERROR(Resynchronize());
  if (state_ == State::kEnded) return false;

  SLUICE_RETURN_IF_ERROR(Fill(kHeaderSize));
  if (available() == 0) {
    state_ = State::kEnded;
    return false;
  }
  record_offset_ = position_;
  ++record_index_;
  if (available() < kHeaderSize) {
    state_ = State::kEnded;
    return Damage(StrCat("truncated header (", available(), " of ", kHeaderSize,
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

  SLUICE_ASSIGN_OR_RETURN(bool complete, ReadData(*length, record));
  if (!complete) {
    state_ = State::kEnded;
    return Damage(StrCat("truncated data (the header declares ", *length,
                         " bytes; the file ends before them)"));
  }
  SLUICE_RETURN_IF_ERROR(Fill(kFooterSize));
  if (available() < kFooterSize) {
    state_ = State::kEnded;
    return Damage(StrCat("truncated footer (", available(), " of ", kFooterSize,
                         " bytes of the data CRC before the end of the file)"));
  }
  const uint32_t expected = crc32c::Unmask(record_format::LoadU32(buffer() + begin_));
  Consume(kFooterSize);
  const uint32_t actual = crc32c::Value(record->data(), record->size());
  if (expected != actual) return DataCrcMismatch(expected, actual, *length);
  return true;
}

}  // namespace sluice

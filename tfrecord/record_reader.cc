#include "tfrecord/record_reader.h"

#include <algorithm>
#include <cstring>

#include "tfrecord/crc32c.h"
#include "tfrecord/record_format.h"
#include "tfrecord/zlib_input_stream.h"

namespace sluice {

using record_format::kFooterSize;
using record_format::kHeaderSize;

namespace {

// Records read straight into their destination grow it by at most this
// much ahead of the bytes that arrived, so a damaged length can't allocate
// more than the file holds.
constexpr size_t kDirectReadChunk = 1 << 20;

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
      buffer_(std::make_unique_for_overwrite<uint8_t[]>(buffer_size_)) {}

Status RecordReader::Fill(size_t size) {
  if (available() >= size || stream_ended_) return OkStatus();
  // Move the few unread bytes to the front, so that reads stay large.
  std::memmove(buffer_.get(), buffer_.get() + begin_, available());
  end_ -= begin_;
  begin_ = 0;
  while (available() < size) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, ReadStream(buffer_.get() + end_, buffer_size_ - end_));
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

Result<bool> RecordReader::ReadData(std::string* record, uint64_t size) {
  // Small records come through the buffer in one piece.
  if (size + kFooterSize <= buffer_size_) {
    SLUICE_RETURN_IF_ERROR(Fill(size));
    if (available() < size) return false;
    record->assign(reinterpret_cast<const char*>(buffer_.get() + begin_), size);
    Consume(size);
    return true;
  }
  // Large ones: what the buffer holds, then straight from the stream.
  const size_t buffered = std::min<uint64_t>(available(), size);
  record->assign(reinterpret_cast<const char*>(buffer_.get() + begin_), buffered);
  Consume(buffered);
  uint64_t done = buffered;
  while (done < size) {
    const size_t chunk = std::min<uint64_t>(size - done, std::max(kDirectReadChunk, record->size()));
    record->resize(done + chunk);
    SLUICE_ASSIGN_OR_RETURN(size_t n, ReadStream(record->data() + done, chunk));
    done += n;
    position_ += n;
    if (n < chunk) {
      stream_ended_ = true;
      return false;
    }
  }
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
    if (record_format::LengthCrcMatches(buffer_.get() + begin_)) {
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
  Result<uint64_t> length = record_format::DecodeHeader(buffer_.get() + begin_);
  if (!length.ok()) {
    Consume(1);
    ++bytes_skipped_;
    state_ = State::kResynchronizing;
    return Damage(length.status().message());
  }
  Consume(kHeaderSize);

  SLUICE_ASSIGN_OR_RETURN(bool complete, ReadData(record, *length));
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
  const uint32_t expected = crc32c::Unmask(record_format::LoadU32(buffer_.get() + begin_));
  Consume(kFooterSize);
  const uint32_t actual = crc32c::Value(record->data(), record->size());
  if (expected != actual) {
    return Damage(StrCat("data CRC mismatch (stored ", record_format::Hex32(expected),
                         ", computed ", record_format::Hex32(actual), ", ", *length,
                         " data bytes)"));
  }
  return true;
}

}  // namespace sluice

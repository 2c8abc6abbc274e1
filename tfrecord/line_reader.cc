#include "sluice/tfrecord/line_reader.h"

#include <cstring>

namespace sluice {

namespace {

// The line [begin, end) without its '\r's, dropped in place: its bytes are
// unread, so nothing views them yet.
std::string_view WithoutCarriageReturns(char* begin, char* end) {
  char* out = static_cast<char*>(std::memchr(begin, '\r', static_cast<size_t>(end - begin)));
  if (out == nullptr) return {begin, static_cast<size_t>(end - begin)};
  for (const char* p = out + 1; p < end; ++p) {
    if (*p != '\r') *out++ = *p;
  }
  return {begin, static_cast<size_t>(out - begin)};
}

}  // namespace

Result<std::unique_ptr<LineReader>> LineReader::Open(const std::string& path, LineReaderOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  return FromStream(std::move(stream), std::move(options));
}

std::unique_ptr<LineReader> LineReader::FromStream(std::unique_ptr<InputStream> stream, LineReaderOptions options) {
  auto input =
      std::make_unique<ChunkedInput>(std::move(stream), ChunkedInputOptions{.compression = options.compression,
                                                                            .chunk_size = options.buffer_size,
                                                                            .charge = std::move(options.charge)});
  return std::unique_ptr<LineReader>(new LineReader(std::move(input), options.max_line_bytes));
}

LineReader::LineReader(std::unique_ptr<ChunkedInput> input, uint64_t max_line_bytes)
    : input_(std::move(input)), max_line_bytes_(max_line_bytes) {}

Result<size_t> LineReader::ReadLines(std::string_view* out, size_t max, std::shared_ptr<const Buffer>* owner) {
  while (!ended_) {
    if (skipping_) {
      SLUICE_RETURN_IF_ERROR(SkipLongLine());
      continue;
    }
    char* const begin = input_->begin();
    char* const end = input_->end();
    char* p = begin;
    size_t n = 0;
    while (n < max) {
      char* newline = static_cast<char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (newline == nullptr) break;
      if (static_cast<uint64_t>(newline - p) > max_line_bytes_) {
        if (n > 0) break;  // the lines before it come first
        const Status error = TooLong(static_cast<uint64_t>(newline - p), /*whole=*/true);
        input_->Consume(static_cast<size_t>(newline + 1 - p));
        ++line_index_;
        return error;
      }
      out[n++] = WithoutCarriageReturns(p, newline);
      p = newline + 1;
    }
    if (n > 0) {
      input_->Consume(static_cast<size_t>(p - begin));
      line_index_ += static_cast<int64_t>(n);
      const std::shared_ptr<Buffer>& chunk = input_->Share();
      if (owner->get() != chunk.get()) *owner = chunk;
      return n;
    }
    // No whole line is buffered.
    const size_t unread = input_->available();
    if (unread > max_line_bytes_) {
      skipping_ = true;
      return TooLong(unread, /*whole=*/false);
    }
    Result<size_t> read = input_->Refill();
    if (!read.ok()) {
      // Without room to grow the buffer, the line is passed over as a long one.
      (read.status().code() == StatusCode::kResourceExhausted ? skipping_ : ended_) = true;
      return read.status();
    }
    if (*read > 0) continue;
    // The end of the file: the last line, without its '\n'.
    ended_ = true;
    if (unread == 0) return 0;
    const std::string_view line = WithoutCarriageReturns(input_->begin(), input_->end());
    input_->Consume(unread);
    ++line_index_;
    if (line.empty()) return 0;
    out[0] = line;
    const std::shared_ptr<Buffer>& chunk = input_->Share();
    if (owner->get() != chunk.get()) *owner = chunk;
    return 1;
  }
  return 0;
}

Status LineReader::SkipLongLine() {
  skipping_ = false;
  ++line_index_;
  while (true) {
    const char* newline = static_cast<const char*>(std::memchr(input_->begin(), '\n', input_->available()));
    if (newline != nullptr) {
      input_->Consume(static_cast<size_t>(newline + 1 - input_->begin()));
      return OkStatus();
    }
    input_->Consume(input_->available());
    Result<size_t> read = input_->Refill();
    if (!read.ok() || *read == 0) {
      ended_ = true;
      return read.status();
    }
  }
}

Status LineReader::TooLong(uint64_t length, bool whole) const {
  return DataLossError(name(), ": line ", line_index_, " at byte offset ", input_->offset(), " has ", length,
                       whole ? " bytes" : " bytes or more", ", past max_line_bytes (", max_line_bytes_, ")");
}

Status LineReader::Seek(const ItemPosition& position) {
  SLUICE_RETURN_IF_ERROR(input_->SkipTo(position.offset));
  line_index_ = position.next_item;
  return OkStatus();
}

}  // namespace sluice

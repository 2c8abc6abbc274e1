#include "sluice/tfrecord/csv_reader.h"

#include <cstring>

namespace sluice {

namespace {

// A quoted field's bytes [begin, end), quotes included, as its value: the
// framing quotes dropped and each "" made one '"', in place (the bytes are
// unread, so nothing views them yet).
std::string_view Unquoted(char* begin, char* end) {
  char* const first = begin + 1;
  char* const last = end - 1 > first ? end - 1 : first;
  char* quote = static_cast<char*>(std::memchr(first, '"', static_cast<size_t>(last - first)));
  if (quote == nullptr) return {first, static_cast<size_t>(last - first)};
  char* out = quote + 1;  // keeps the first quote of the pair
  for (const char* p = quote + 2; p < last; ++p) {
    *out++ = *p;
    if (*p == '"') ++p;  // the second of a pair
  }
  return {first, static_cast<size_t>(out - first)};
}

}  // namespace

Result<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path, CsvReaderOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  return FromStream(std::move(stream), std::move(options));
}

std::unique_ptr<CsvReader> CsvReader::FromStream(std::unique_ptr<InputStream> stream, CsvReaderOptions options) {
  auto input =
      std::make_unique<ChunkedInput>(std::move(stream), ChunkedInputOptions{.compression = options.compression,
                                                                            .chunk_size = options.buffer_size,
                                                                            .charge = std::move(options.charge)});
  return std::unique_ptr<CsvReader>(new CsvReader(std::move(input), options));
}

CsvReader::CsvReader(std::unique_ptr<ChunkedInput> input, const CsvReaderOptions& options)
    : input_(std::move(input)),
      delim_(options.field_delim),
      use_quote_delim_(options.use_quote_delim),
      max_record_bytes_(options.max_record_bytes),
      max_fields_(options.max_fields) {}

Result<bool> CsvReader::ReadRecord(std::vector<std::string_view>* fields, std::shared_ptr<const Buffer>* owner) {
  while (!ended_) {
    if (input_->available() == 0 && !at_end_) {
      Result<size_t> read = input_->Refill();
      if (!read.ok()) {
        ended_ = true;
        return read.status();
      }
      at_end_ = *read == 0;
    }
    if (input_->available() == 0) break;
    size_t length = 0;
    std::string error;
    const Scan scan = ScanRecord(at_end_, &length, &error);
    if (scan == Scan::kNeedMore) {
      if (input_->available() > max_record_bytes_) {
        ended_ = true;
        ++record_index_;
        record_offset_ = input_->offset();
        return Damage(StrCat("the record has ", input_->available(), " bytes or more, past max_record_bytes (",
                             max_record_bytes_, "); the rest of the file is not read"));
      }
      Result<size_t> read = input_->Refill();
      if (!read.ok()) {
        ended_ = true;
        return read.status();
      }
      at_end_ = *read == 0;
      continue;
    }
    ++record_index_;
    record_offset_ = input_->offset();
    if (length > max_record_bytes_) {
      input_->Consume(length);
      return Damage(StrCat("the record has ", length, " bytes, past max_record_bytes (", max_record_bytes_, ")"));
    }
    if (scan == Scan::kError) {
      input_->Consume(length);
      return Damage(error);
    }
    char* const bytes = input_->begin();
    fields->clear();
    for (const FieldSpan& span : spans_) {
      fields->push_back(span.quoted ? Unquoted(bytes + span.begin, bytes + span.end)
                                    : std::string_view(bytes + span.begin, span.end - span.begin));
    }
    input_->Consume(length);
    const std::shared_ptr<Buffer>& chunk = input_->Share();
    if (owner->get() != chunk.get()) *owner = chunk;
    return true;
  }
  ended_ = true;
  return false;
}

CsvReader::Scan CsvReader::ScanRecord(bool at_end, size_t* length, std::string* error) {
  const char* const bytes = input_->begin();
  const size_t size = input_->available();
  spans_.clear();
  // The record ends with the line break at `at` ('\n', '\r' or "\r\n").
  const auto end_record = [&](size_t at) {
    if (bytes[at] == '\r' && at + 1 == size && !at_end) return Scan::kNeedMore;  // a '\n' may follow
    *length = at + (bytes[at] == '\r' && at + 1 < size && bytes[at + 1] == '\n' ? 2 : 1);
    return error->empty() ? Scan::kRecord : Scan::kError;
  };
  // The record ends with the file.
  const auto end_file = [&] {
    if (!at_end) return Scan::kNeedMore;
    *length = size;
    return error->empty() ? Scan::kRecord : Scan::kError;
  };
  // Keeps a field's span, up to max_fields_ of them.
  const auto add_field = [&](FieldSpan span) {
    if (spans_.size() < max_fields_) {
      spans_.push_back(span);
    } else if (error->empty()) {
      *error = StrCat("the record has more than ", max_fields_, " fields");
    }
  };
  size_t pos = 0;  // of the next field
  while (true) {
    if (use_quote_delim_ && pos < size && bytes[pos] == '"') {
      size_t i = pos + 1;
      while (true) {
        const auto* quote = static_cast<const char*>(std::memchr(bytes + i, '"', size - i));
        if (quote == nullptr) {
          if (!at_end) return Scan::kNeedMore;
          *length = size;
          *error = "the file ends inside its quoted field";
          return Scan::kError;
        }
        const size_t at = static_cast<size_t>(quote - bytes);
        if (at + 1 == size) {
          add_field({pos, size, true});
          return end_file();
        }
        const char next = bytes[at + 1];
        if (next == '"') {
          i = at + 2;
          continue;
        }
        if (next == delim_ || next == '\n' || next == '\r') {
          add_field({pos, at + 1, true});
          if (next != delim_) return end_record(at + 1);
          pos = at + 2;
          break;
        }
        if (error->empty()) {
          *error = StrCat("field ", spans_.size(), " is quoted and holds a '\"' that is not doubled");
        }
        i = at + 2;
      }
      continue;
    }
    size_t i = pos;
    while (i < size && bytes[i] != delim_ && bytes[i] != '\n' && bytes[i] != '\r') {
      if (bytes[i] == '"' && use_quote_delim_ && error->empty()) {
        *error = StrCat("field ", spans_.size(), " is not quoted but holds a '\"'");
      }
      ++i;
    }
    add_field({pos, i, false});
    if (i == size) return end_file();
    if (bytes[i] != delim_) return end_record(i);
    pos = i + 1;
  }
}

Status CsvReader::Damage(std::string_view what) const {
  return DataLossError(name(), ": record ", record_index_, " at byte offset ", record_offset_, ": ", what);
}

Status CsvReader::Seek(const ItemPosition& position) {
  SLUICE_RETURN_IF_ERROR(input_->SkipTo(position.offset));
  record_index_ = position.next_item - 1;
  return OkStatus();
}

}  // namespace sluice

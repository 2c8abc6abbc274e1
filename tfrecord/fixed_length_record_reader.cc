#include "sluice/tfrecord/fixed_length_record_reader.h"

#include <sys/stat.h>

#include <algorithm>

namespace sluice {

Status CheckFixedLengthRecordFileSize(const std::string& file, uint64_t file_bytes, uint64_t record_bytes,
                                      uint64_t header_bytes, uint64_t footer_bytes) {
  if (file_bytes < header_bytes || file_bytes - header_bytes < footer_bytes) {
    return InvalidArgumentError("fixed_length_record: input file \"", file, "\" has ", file_bytes,
                                " bytes, fewer than its header (", header_bytes, " bytes) and footer (", footer_bytes,
                                " bytes)");
  }
  const uint64_t body = file_bytes - header_bytes - footer_bytes;
  if (body % record_bytes != 0) {
    return InvalidArgumentError("fixed_length_record: Excluding the header (", header_bytes, " bytes) and footer (",
                                footer_bytes, " bytes), input file \"", file, "\" has body length ", body,
                                " bytes, which is not an exact multiple of the record length (", record_bytes,
                                " bytes).");
  }
  return OkStatus();
}

Result<std::unique_ptr<FixedLengthRecordReader>> FixedLengthRecordReader::Open(const std::string& path,
                                                                               FixedLengthRecordReaderOptions options) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileInputStream(path));
  if (options.compression == Compression::kNone) {
    struct stat info {};
    if (::stat(path.c_str(), &info) == 0) {
      SLUICE_RETURN_IF_ERROR(CheckFixedLengthRecordFileSize(
          path, static_cast<uint64_t>(info.st_size), options.record_bytes, options.header_bytes, options.footer_bytes));
    }
  }
  return FromStream(std::move(stream), std::move(options));
}

std::unique_ptr<FixedLengthRecordReader> FixedLengthRecordReader::FromStream(std::unique_ptr<InputStream> stream,
                                                                             FixedLengthRecordReaderOptions options) {
  auto input =
      std::make_unique<ChunkedInput>(std::move(stream), ChunkedInputOptions{.compression = options.compression,
                                                                            .chunk_size = options.buffer_size,
                                                                            .charge = std::move(options.charge)});
  return std::unique_ptr<FixedLengthRecordReader>(new FixedLengthRecordReader(std::move(input), options));
}

FixedLengthRecordReader::FixedLengthRecordReader(std::unique_ptr<ChunkedInput> input,
                                                 const FixedLengthRecordReaderOptions& options)
    : input_(std::move(input)),
      record_bytes_(std::max<uint64_t>(options.record_bytes, 1)),
      header_bytes_(options.header_bytes),
      footer_bytes_(options.footer_bytes),
      header_passed_(options.header_bytes == 0) {}

Result<size_t> FixedLengthRecordReader::ReadRecords(std::string_view* out, size_t max,
                                                    std::shared_ptr<const Buffer>* owner) {
  if (ended_) return 0;
  if (!header_passed_) {
    if (Status passed = PassHeader(); !passed.ok()) {
      ended_ = true;
      return passed;
    }
  }
  while (true) {
    // A record is handed out once the footer's length is buffered after it,
    // so that the footer is never taken for a record.
    const uint64_t available = input_->available();
    if (available >= footer_bytes_ && available - footer_bytes_ >= record_bytes_) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(max, (available - footer_bytes_) / record_bytes_));
      const char* begin = input_->begin();
      for (size_t i = 0; i < n; ++i) out[i] = {begin + i * record_bytes_, static_cast<size_t>(record_bytes_)};
      input_->Consume(n * record_bytes_);
      record_index_ += static_cast<int64_t>(n);
      const std::shared_ptr<Buffer>& chunk = input_->Share();
      if (owner->get() != chunk.get()) *owner = chunk;
      return n;
    }
    Result<size_t> read = input_->Refill();
    if (!read.ok()) {
      ended_ = true;
      return read.status();
    }
    if (*read > 0) continue;
    ended_ = true;
    if (available == footer_bytes_) return 0;
    return CheckFixedLengthRecordFileSize(name(), input_->offset() + available, record_bytes_, header_bytes_,
                                          footer_bytes_);
  }
}

Status FixedLengthRecordReader::PassHeader() {
  uint64_t remaining = header_bytes_ - input_->offset();
  while (remaining > 0) {
    if (input_->available() == 0) {
      SLUICE_ASSIGN_OR_RETURN(size_t read, input_->Refill());
      if (read == 0) {
        return CheckFixedLengthRecordFileSize(name(), input_->offset(), record_bytes_, header_bytes_, footer_bytes_);
      }
    }
    const uint64_t passed = std::min<uint64_t>(remaining, input_->available());
    input_->Consume(static_cast<size_t>(passed));
    remaining -= passed;
  }
  header_passed_ = true;
  return OkStatus();
}

Status FixedLengthRecordReader::Seek(const ItemPosition& position) {
  if (position.offset == 0 && position.next_item == 0) return OkStatus();  // nothing read yet
  const uint64_t index = static_cast<uint64_t>(position.next_item);
  if (position.next_item < 0 || index > (UINT64_MAX - header_bytes_) / record_bytes_ ||
      position.offset != header_bytes_ + index * record_bytes_) {
    return DataLossError(name(), ": iterator state: record ", position.next_item, " at byte offset ", position.offset,
                         " is not the start of a record of ", record_bytes_, " bytes after a header of ",
                         header_bytes_);
  }
  SLUICE_RETURN_IF_ERROR(input_->SkipTo(position.offset));
  record_index_ = position.next_item;
  header_passed_ = true;
  return OkStatus();
}

}  // namespace sluice

#include "sluice/tfrecord/record_writer.h"

#include "sluice/tfrecord/record_format.h"
#include "sluice/tfrecord/zlib_output_stream.h"

namespace sluice {

Result<std::unique_ptr<RecordWriter>> RecordWriter::Open(const std::string& path,
                                                         RecordWriterOptions options) {
  if (options.compression_level < -1 || options.compression_level > 9) {
    return InvalidArgumentError("compression_level must be -1 (default) or 0..9, got ",
                                options.compression_level);
  }
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<OutputStream> sink,
                          OpenFileOutputStream(path, options.buffer_size));
  return FromStream(std::move(sink), options);
}

std::unique_ptr<RecordWriter> RecordWriter::FromStream(std::unique_ptr<OutputStream> sink,
                                                       RecordWriterOptions options) {
  if (options.compression != Compression::kNone) {
    sink = MakeZlibOutputStream(std::move(sink), options.compression, options.compression_level);
  }
  return std::unique_ptr<RecordWriter>(new RecordWriter(std::move(sink)));
}

RecordWriter::~RecordWriter() {
  if (!closed_) (void)Close();
}

Status RecordWriter::WriteRecord(std::string_view data) {
  if (closed_) return FailedPreconditionError(sink_->name(), ": WriteRecord after Close");
  uint8_t header[record_format::kHeaderSize];
  uint8_t footer[record_format::kFooterSize];
  record_format::EncodeHeader(data.size(), header);
  record_format::EncodeFooter(data.data(), data.size(), footer);
  SLUICE_RETURN_IF_ERROR(sink_->Write(header, sizeof(header)));
  SLUICE_RETURN_IF_ERROR(sink_->Write(data.data(), data.size()));
  SLUICE_RETURN_IF_ERROR(sink_->Write(footer, sizeof(footer)));
  ++records_written_;
  return OkStatus();
}

Status RecordWriter::Flush() {
  if (closed_) return OkStatus();
  return sink_->Flush();
}

Status RecordWriter::Close() {
  if (closed_) return OkStatus();
  closed_ = true;
  return sink_->Close();
}

}  // namespace sluice

#include "sluice/tfrecord/zlib_output_stream.h"

#include <zlib.h>

#include <memory>

namespace sluice {

namespace {

constexpr size_t kOutputBufferSize = 256 << 10;

class ZlibOutputStream final : public OutputStream {
 public:
  ZlibOutputStream(std::unique_ptr<OutputStream> sink, Compression compression, int level)
      : sink_(std::move(sink)), output_(std::make_unique_for_overwrite<Bytef[]>(kOutputBufferSize)) {
    const int window_bits = compression == Compression::kGzip ? MAX_WBITS + 16 : MAX_WBITS;
    initialized_ = deflateInit2(&stream_, level, Z_DEFLATED, window_bits, /*memLevel=*/9,
                                Z_DEFAULT_STRATEGY) == Z_OK;
  }
  ~ZlibOutputStream() override {
    if (!closed_) (void)Close();
    if (initialized_) deflateEnd(&stream_);
  }

  Status Write(const void* data, size_t size) override {
    if (closed_) return FailedPreconditionError(StrCat(name(), ": write after close"));
    const Bytef* bytes = static_cast<const Bytef*>(data);
    // avail_in is 32 bits: feed huge writes in pieces.
    while (size > 0) {
      const size_t piece = std::min<size_t>(size, 1u << 30);
      stream_.next_in = const_cast<Bytef*>(bytes);
      stream_.avail_in = static_cast<uInt>(piece);
      SLUICE_RETURN_IF_ERROR(Deflate(Z_NO_FLUSH));
      bytes += piece;
      size -= piece;
    }
    return OkStatus();
  }
  Status Flush() override {
    if (closed_) return OkStatus();
    SLUICE_RETURN_IF_ERROR(Deflate(Z_SYNC_FLUSH));
    return sink_->Flush();
  }
  Status Close() override {
    if (closed_) return OkStatus();
    closed_ = true;
    SLUICE_RETURN_IF_ERROR(Deflate(Z_FINISH));
    return sink_->Close();
  }
  const std::string& name() const override { return sink_->name(); }

 private:
  // Runs deflate until it has consumed its input (and, for a flush, emitted
  // everything), writing full output buffers to the sink.
  Status Deflate(int flush) {
    if (!initialized_) return InternalError(StrCat(name(), ": deflateInit2 failed"));
    while (true) {
      stream_.next_out = output_.get();
      stream_.avail_out = static_cast<uInt>(kOutputBufferSize);
      const int rc = deflate(&stream_, flush);
      if (rc == Z_STREAM_ERROR) return InternalError(StrCat(name(), ": deflate failed"));
      const size_t produced = kOutputBufferSize - stream_.avail_out;
      if (produced > 0) SLUICE_RETURN_IF_ERROR(sink_->Write(output_.get(), produced));
      // Done when deflate had room to spare and has nothing more to say.
      if (flush == Z_FINISH ? rc == Z_STREAM_END : stream_.avail_out != 0 && stream_.avail_in == 0) {
        return OkStatus();
      }
    }
  }

  const std::unique_ptr<OutputStream> sink_;
  const std::unique_ptr<Bytef[]> output_;
  z_stream stream_{};
  bool initialized_ = false;
  bool closed_ = false;
};

}  // namespace

std::unique_ptr<OutputStream> MakeZlibOutputStream(std::unique_ptr<OutputStream> sink,
                                                   Compression compression, int level) {
  return std::make_unique<ZlibOutputStream>(std::move(sink), compression, level);
}

}  // namespace sluice

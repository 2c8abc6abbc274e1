#include "tfrecord/zlib_input_stream.h"

#include <zlib.h>

#include <memory>

namespace sluice {

namespace {

class ZlibInputStream final : public InputStream {
 public:
  ZlibInputStream(std::unique_ptr<InputStream> compressed, Compression compression,
                  size_t input_buffer_size)
      : compressed_(std::move(compressed)),
        window_bits_(compression == Compression::kGzip ? MAX_WBITS + 16 : MAX_WBITS),
        input_size_(std::max<size_t>(input_buffer_size, 64)),
        input_(std::make_unique_for_overwrite<Bytef[]>(input_size_)) {
    stream_.next_in = input_.get();
    stream_.avail_in = 0;
    initialized_ = inflateInit2(&stream_, window_bits_) == Z_OK;
  }
  ~ZlibInputStream() override {
    if (initialized_) inflateEnd(&stream_);
  }

  Result<size_t> Read(void* out, size_t size) override {
    if (!initialized_) return InternalError(StrCat(name(), ": inflateInit2 failed"));
    stream_.next_out = static_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(size);
    while (stream_.avail_out > 0 && !finished_) {
      if (stream_.avail_in == 0) {
        SLUICE_RETURN_IF_ERROR(Refill());
        if (stream_.avail_in == 0) {
          // The input ended: cleanly between streams (or in an empty
          // file), otherwise inside one. What was decompressed before a
          // truncation is returned first; the next read reports it.
          if (in_stream_ && stream_.avail_out < size) break;
          if (in_stream_) {
            return DataLossError(StrCat(name(), ": compressed stream truncated at compressed byte ",
                                        compressed_offset_, " (", window_bits_ > MAX_WBITS ? "GZIP" : "ZLIB",
                                        ")"));
          }
          finished_ = true;
          break;
        }
      }
      if (!in_stream_) in_stream_ = true;
      const uInt before = stream_.avail_in;
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      compressed_offset_ += before - stream_.avail_in;
      if (rc == Z_STREAM_END) {
        // Another member may follow (concatenated gzip files).
        in_stream_ = false;
        inflateReset(&stream_);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return DataLossError(StrCat(name(), ": corrupt ", window_bits_ > MAX_WBITS ? "GZIP" : "ZLIB",
                                    " data near compressed byte ", compressed_offset_, ": ",
                                    stream_.msg ? stream_.msg : zError(rc)));
      }
    }
    return size - stream_.avail_out;
  }
  const std::string& name() const override { return compressed_->name(); }

 private:
  Status Refill() {
    SLUICE_ASSIGN_OR_RETURN(size_t n, compressed_->Read(input_.get(), input_size_));
    stream_.next_in = input_.get();
    stream_.avail_in = static_cast<uInt>(n);
    return OkStatus();
  }

  const std::unique_ptr<InputStream> compressed_;
  const int window_bits_;
  const size_t input_size_;
  const std::unique_ptr<Bytef[]> input_;
  z_stream stream_{};
  bool initialized_ = false;
  bool in_stream_ = false;  // inside a compressed member
  bool finished_ = false;
  uint64_t compressed_offset_ = 0;
};

}  // namespace

std::unique_ptr<InputStream> MakeZlibInputStream(std::unique_ptr<InputStream> compressed,
                                                 Compression compression,
                                                 size_t input_buffer_size) {
  return std::make_unique<ZlibInputStream>(std::move(compressed), compression, input_buffer_size);
}

}  // namespace sluice

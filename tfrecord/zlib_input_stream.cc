#include "sluice/tfrecord/zlib_input_stream.h"

#include <zlib.h>

#include <memory>
#include <utility>

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
    if (!error_.ok()) {
      finished_ = true;
      return std::exchange(error_, OkStatus());
    }
    stream_.next_out = static_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(size);
    while (stream_.avail_out > 0 && !finished_) {
      if (stream_.avail_in == 0) {
        SLUICE_RETURN_IF_ERROR(Refill());
        if (stream_.avail_in == 0) {
          // The input ended: cleanly between members (or in an empty
          // file), otherwise inside one.
          if (in_stream_) {
            error_ = DataLossError(name(), ": ",
                                   Trailing() ? TrailingBytes("are not a whole member")
                                              : StrCat("compressed stream truncated at compressed byte ",
                                                       compressed_offset_, " (", Kind(), ")"));
          }
          finished_ = true;
          break;
        }
      }
      if (!in_stream_) {
        in_stream_ = true;
        member_offset_ = compressed_offset_;
      }
      const uInt before = stream_.avail_in;
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      compressed_offset_ += before - stream_.avail_in;
      if (rc == Z_STREAM_END) {
        // Another member may follow (concatenated gzip files).
        in_stream_ = false;
        ++members_;
        inflateReset(&stream_);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        const std::string why = stream_.msg ? stream_.msg : zError(rc);
        error_ = DataLossError(name(), ": ",
                               Trailing() ? TrailingBytes(StrCat("are not a ", Kind(), " member (", why, ")"))
                                          : StrCat("corrupt ", Kind(), " data near compressed byte ",
                                                   compressed_offset_, ": ", why));
        finished_ = true;
      }
    }
    // What was decompressed before an error is returned first; the next
    // read reports the error.
    if (!error_.ok() && stream_.avail_out == size) return std::exchange(error_, OkStatus());
    return size - stream_.avail_out;
  }
  const std::string& name() const override { return compressed_->name(); }

 private:
  const char* Kind() const { return window_bits_ > MAX_WBITS ? "GZIP" : "ZLIB"; }
  // Whether the member being read follows a complete one and has produced
  // nothing: bytes after the last member, not a damaged one.
  bool Trailing() const { return members_ > 0 && stream_.total_out == 0; }
  std::string TrailingBytes(std::string_view what) const {
    return StrCat("the bytes from compressed byte ", member_offset_, " on, after ", members_, " complete ", Kind(),
                  " member(s), ", what);
  }

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
  Status error_;  // met after bytes that the last read returned
  uint64_t compressed_offset_ = 0;
  uint64_t member_offset_ = 0;  // where the member being read starts
  int64_t members_ = 0;         // complete members read
};

}  // namespace

std::unique_ptr<InputStream> MakeZlibInputStream(std::unique_ptr<InputStream> compressed,
                                                 Compression compression,
                                                 size_t input_buffer_size) {
  return std::make_unique<ZlibInputStream>(std::move(compressed), compression, input_buffer_size);
}

}  // namespace sluice

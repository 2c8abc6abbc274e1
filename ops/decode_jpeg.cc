#include "sluice/ops/decode_jpeg.h"

// jpeglib.h needs FILE and size_t declared first.
#include <csetjmp>
#include <cstdio>

#include <jpeglib.h>

namespace sluice {
namespace {

// libjpeg reports errors through error_exit, which must not return. It
// longjmps back to the setjmp of the step that called into libjpeg. The
// steps below are the only frames between a setjmp and libjpeg, and they hold
// only trivially destructible locals, so the jump skips no destructor; the
// decompressor itself is destroyed by its owner (JpegDecompressor), which
// frees every libjpeg allocation on the error path too.
struct ErrorManager {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void ErrorExit(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

// Warnings (msg_level -1) are corrupt data that libjpeg would patch over:
// errors here. Trace messages (>= 0) are dropped.
void EmitMessage(j_common_ptr cinfo, int msg_level) {
  if (msg_level < 0) ErrorExit(cinfo);
}

void OutputMessage(j_common_ptr /*cinfo*/) {}  // nothing on stderr

class JpegDecompressor {
 public:
  JpegDecompressor() {
    cinfo_.err = jpeg_std_error(&err_.pub);
    err_.pub.error_exit = ErrorExit;
    err_.pub.emit_message = EmitMessage;
    err_.pub.output_message = OutputMessage;
  }
  ~JpegDecompressor() { jpeg_destroy_decompress(&cinfo_); }
  JpegDecompressor(const JpegDecompressor&) = delete;
  JpegDecompressor& operator=(const JpegDecompressor&) = delete;

  jpeg_decompress_struct& cinfo() { return cinfo_; }
  Status Error() const { return DataLossError("JPEG data: ", err_.message); }

  // Each step returns false when libjpeg reported an error (Error()).
  bool Create() {
    if (setjmp(err_.jump)) return false;
    jpeg_create_decompress(&cinfo_);  // fails only when out of memory
    return true;
  }
  bool ReadHeader(const unsigned char* data, unsigned long size) {
    if (setjmp(err_.jump)) return false;
    jpeg_mem_src(&cinfo_, data, size);
    jpeg_read_header(&cinfo_, TRUE);
    return true;
  }
  bool Start() {
    if (setjmp(err_.jump)) return false;
    jpeg_start_decompress(&cinfo_);
    return true;
  }
  // Decodes every output row into `out` (rows of `stride` bytes), then reads
  // to the end of the data, where a missing end marker is a warning.
  bool ReadAll(unsigned char* out, size_t stride) {
    if (setjmp(err_.jump)) return false;
    constexpr JDIMENSION kRowsPerCall = 16;
    JSAMPROW rows[kRowsPerCall];
    while (cinfo_.output_scanline < cinfo_.output_height) {
      const JDIMENSION first = cinfo_.output_scanline;
      JDIMENSION n = cinfo_.output_height - first;
      if (n > kRowsPerCall) n = kRowsPerCall;
      for (JDIMENSION i = 0; i < n; ++i) rows[i] = out + (first + i) * stride;
      jpeg_read_scanlines(&cinfo_, rows, n);
    }
    jpeg_finish_decompress(&cinfo_);
    return true;
  }

 private:
  // Zeroed, so that destroying it after a failed Create frees nothing.
  jpeg_decompress_struct cinfo_{};
  ErrorManager err_{};
};

}  // namespace

std::string_view JpegDctMethodName(JpegDctMethod method) {
  return method == JpegDctMethod::kFast ? "fast" : "accurate";
}

Result<JpegDctMethod> ParseJpegDctMethod(std::string_view name) {
  if (name == "accurate") return JpegDctMethod::kAccurate;
  if (name == "fast") return JpegDctMethod::kFast;
  return InvalidArgumentError("unknown DCT method '", name, "' (expected accurate or fast)");
}

Status CheckDecodeJpegOptions(const DecodeJpegOptions& options) {
  if (options.channels != 0 && options.channels != 1 && options.channels != 3) {
    return InvalidArgumentError("channels must be 0, 1 or 3, got ", options.channels);
  }
  if (options.ratio != 1 && options.ratio != 2 && options.ratio != 4 && options.ratio != 8) {
    return InvalidArgumentError("ratio must be 1, 2, 4 or 8, got ", options.ratio);
  }
  return CheckMaxPixels(options.max_pixels);
}

Result<Tensor> DecodeJpeg(std::string_view bytes, const DecodeJpegOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckDecodeJpegOptions(options));
  if (bytes.empty()) return DataLossError("JPEG data is empty (0 bytes)");
  if (bytes.size() > ULONG_MAX) return InvalidArgumentError("JPEG data is too large");
  JpegDecompressor decompressor;
  jpeg_decompress_struct& cinfo = decompressor.cinfo();
  if (!decompressor.Create() || !decompressor.ReadHeader(reinterpret_cast<const unsigned char*>(bytes.data()),
                               static_cast<unsigned long>(bytes.size()))) {
    return decompressor.Error();
  }
  // The decoder's own buffers scale with the encoded size: bound it first.
  SLUICE_RETURN_IF_ERROR(ImageShape("JPEG image", cinfo.image_height, cinfo.image_width,
                                    cinfo.num_components, options.max_pixels)
                             .status());
  if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
    return UnimplementedError("JPEG image is CMYK/YCCK; only grayscale and colour (YCbCr, RGB) "
                              "images are decoded");
  }
  int channels = options.channels;
  if (channels == 0) channels = cinfo.num_components == 1 ? 1 : 3;
  cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
  cinfo.scale_num = 1;
  cinfo.scale_denom = static_cast<unsigned int>(options.ratio);
  cinfo.dct_method = options.dct_method == JpegDctMethod::kFast ? JDCT_IFAST : JDCT_ISLOW;
  cinfo.do_fancy_upsampling = TRUE;
  if (!decompressor.Start()) return decompressor.Error();
  SLUICE_ASSIGN_OR_RETURN(const Shape shape,
                          ImageShape("decoded JPEG image", cinfo.output_height, cinfo.output_width,
                                     cinfo.output_components, options.max_pixels));
  Tensor::AllocateOptions allocate;
  allocate.fill = Buffer::Fill::kUninitialized;
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(DType::kUInt8, shape, allocate));
  if (!decompressor.ReadAll(out.mutable_data<uint8_t>(),
                            static_cast<size_t>(cinfo.output_width) * cinfo.output_components)) {
    return decompressor.Error();
  }
  return out;
}

}  // namespace sluice

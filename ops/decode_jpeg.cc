#include "sluice/ops/decode_jpeg.h"

#include <algorithm>

#include "sluice/ops/jpeg_crop_scale.h"
#include "sluice/ops/jpeg_error.h"

namespace sluice {
namespace {

// Warnings (msg_level -1) are corrupt data that libjpeg would patch over:
// errors here. Trace messages (>= 0) are dropped.
void EmitMessage(j_common_ptr cinfo, int msg_level) {
  if (msg_level < 0) JpegErrorExit(cinfo);
}

class JpegDecompressor {
 public:
  JpegDecompressor() {
    cinfo_.err = InstallJpegErrorManager(err_);
    err_.pub.emit_message = EmitMessage;
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
  // Sets output_height/output_width from the scale chosen.
  bool CalcOutputDimensions() {
    if (setjmp(err_.jump)) return false;
    jpeg_calc_output_dimensions(&cinfo_);
    return true;
  }
  bool Start() {
    if (setjmp(err_.jump)) return false;
    jpeg_start_decompress(&cinfo_);
    return true;
  }
  // Narrows the output to the iMCU columns that hold [*xoffset, *xoffset +
  // *width) (jpeg_crop_scanline widens the range to them) and skips the
  // first `rows` output rows without decoding their pixels.
  bool Crop(JDIMENSION* xoffset, JDIMENSION* width, JDIMENSION rows) {
    if (setjmp(err_.jump)) return false;
    jpeg_crop_scanline(&cinfo_, xoffset, width);
    if (rows > 0) jpeg_skip_scanlines(&cinfo_, rows);  // REQUIRES: rows < output_height
    return true;
  }
  // Decodes the next rows, at most kRowsPerRead, into `rows` (`stride`
  // bytes apart); *read is how many it decoded.
  static constexpr JDIMENSION kRowsPerRead = 16;
  bool ReadRows(unsigned char* rows, size_t stride, JDIMENSION n, JDIMENSION* read) {
    if (setjmp(err_.jump)) return false;
    JSAMPROW pointers[kRowsPerRead];
    for (JDIMENSION i = 0; i < n; ++i) pointers[i] = rows + i * stride;
    *read = jpeg_read_scanlines(&cinfo_, pointers, n);
    return true;
  }
  // Decodes every output row into `out` (rows of `stride` bytes), then reads
  // to the end of the data, where a missing end marker is a warning.
  bool ReadAll(unsigned char* out, size_t stride) {
    if (setjmp(err_.jump)) return false;
    JSAMPROW rows[kRowsPerRead];
    while (cinfo_.output_scanline < cinfo_.output_height) {
      const JDIMENSION first = cinfo_.output_scanline;
      JDIMENSION n = cinfo_.output_height - first;
      if (n > kRowsPerRead) n = kRowsPerRead;
      for (JDIMENSION i = 0; i < n; ++i) rows[i] = out + (first + i) * stride;
      jpeg_read_scanlines(&cinfo_, rows, n);
    }
    jpeg_finish_decompress(&cinfo_);
    return true;
  }

 private:
  // Zeroed, so that destroying it after a failed Create frees nothing.
  jpeg_decompress_struct cinfo_{};
  JpegErrorManager err_{};
};

// Reads the header, bounds the image's size and sets up decoding with
// `options`; Start() then begins decoding.
Status Prepare(JpegDecompressor& decompressor, std::string_view bytes,
               const DecodeJpegOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckDecodeJpegOptions(options));
  if (bytes.empty()) return DataLossError("JPEG data is empty (0 bytes)");
  if (bytes.size() > ULONG_MAX) return InvalidArgumentError("JPEG data is too large");
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
  return OkStatus();
}

Result<Tensor> AllocateImage(int64_t height, int64_t width, int64_t channels, int64_t max_pixels) {
  SLUICE_ASSIGN_OR_RETURN(const Shape shape,
                          ImageShape("decoded JPEG image", height, width, channels, max_pixels));
  Tensor::AllocateOptions allocate;
  allocate.fill = Buffer::Fill::kUninitialized;
  return Tensor::TryAllocate(DType::kUInt8, shape, allocate);
}

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
  JpegDecompressor decompressor;
  SLUICE_RETURN_IF_ERROR(Prepare(decompressor, bytes, options));
  if (!decompressor.Start()) return decompressor.Error();
  const jpeg_decompress_struct& cinfo = decompressor.cinfo();
  SLUICE_ASSIGN_OR_RETURN(Tensor out, AllocateImage(cinfo.output_height, cinfo.output_width,
                                                    cinfo.output_components, options.max_pixels));
  if (!decompressor.ReadAll(out.mutable_data<uint8_t>(),
                            static_cast<size_t>(cinfo.output_width) * cinfo.output_components)) {
    return decompressor.Error();
  }
  return out;
}

Result<DecodedJpegWindow> DecodeJpegCropRows(std::string_view bytes, const ChooseCropWindow& choose,
                                             const DecodeJpegOptions& options, const CropResizeTarget& target) {
  const bool scaled = target.height > 0 && target.width > 0;
  if (scaled && options.ratio != 1) {
    return InvalidArgumentError("a crop-window decode resized to [", target.height, ", ", target.width,
                                "] picks its own scale; the decode ratio must be 1, got ", options.ratio);
  }
  JpegDecompressor decompressor;
  SLUICE_RETURN_IF_ERROR(Prepare(decompressor, bytes, options));
  jpeg_decompress_struct& cinfo = decompressor.cinfo();
  if (!decompressor.CalcOutputDimensions()) return decompressor.Error();
  SLUICE_ASSIGN_OR_RETURN(CropWindow window, choose(cinfo.output_height, cinfo.output_width));
  SLUICE_RETURN_IF_ERROR(CheckWindowInside(window, cinfo.output_height, cinfo.output_width));
  if (scaled) {
    const int numerator = JpegCropScale(window, target.height, target.width);
    cinfo.scale_num = static_cast<unsigned int>(numerator);
    cinfo.scale_denom = 8;
    window = ScaleCropWindow(window, numerator);
  }
  if (!decompressor.Start()) return decompressor.Error();
  const int64_t height = cinfo.output_height, width = cinfo.output_width;
  SLUICE_RETURN_IF_ERROR(CheckWindowInside(window, height, width));
  // libjpeg treats the decoded columns' edges as the image's edges when it
  // upsamples chroma, so the columns asked for start one before the window
  // and end one after it: the window's pixels are then those of a full decode.
  const int64_t first = window.left > 0 ? window.left - 1 : 0;
  const int64_t last = std::min(window.left + window.width + 1, width);  // exclusive
  auto xoffset = static_cast<JDIMENSION>(first);
  auto columns = static_cast<JDIMENSION>(last - first);
  if (!decompressor.Crop(&xoffset, &columns, static_cast<JDIMENSION>(window.top))) {
    return decompressor.Error();
  }
  // The rows are decoded straight into the result, at the width libjpeg
  // decodes (cinfo.output_width after the crop, whole iMCU columns).
  const int64_t channels = cinfo.output_components;
  SLUICE_ASSIGN_OR_RETURN(Tensor rows,
                          AllocateImage(window.height, cinfo.output_width, channels, options.max_pixels));
  const size_t row_bytes = static_cast<size_t>(cinfo.output_width) * channels;
  uint8_t* dst = rows.mutable_data<uint8_t>();
  for (int64_t y = 0; y < window.height;) {
    const auto wanted = static_cast<JDIMENSION>(std::min<int64_t>(JpegDecompressor::kRowsPerRead, window.height - y));
    JDIMENSION read = 0;
    if (!decompressor.ReadRows(dst + y * row_bytes, row_bytes, wanted, &read)) return decompressor.Error();
    if (read == 0) return DataLossError("JPEG data: no row decoded at row ", window.top + y, " of the window");
    y += read;
  }
  return DecodedJpegWindow{
      .rows = std::move(rows),
      .window = {.top = 0, .left = window.left - static_cast<int64_t>(xoffset), .height = window.height,
                 .width = window.width}};
}

Result<Tensor> DecodeJpegCrop(std::string_view bytes, const ChooseCropWindow& choose,
                              const DecodeJpegOptions& options, const CropResizeTarget& target) {
  SLUICE_ASSIGN_OR_RETURN(DecodedJpegWindow decoded, DecodeJpegCropRows(bytes, choose, options, target));
  if (decoded.window.width == decoded.rows.dim(1)) return std::move(decoded.rows);
  return CropImage(decoded.rows, decoded.window);
}

}  // namespace sluice

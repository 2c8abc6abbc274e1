#include "sluice/ops/encode_jpeg.h"

#include <cstdlib>

#include "sluice/ops/jpeg_error.h"

namespace sluice {
namespace {

// Compresses `image` into *buffer (malloc'd by jpeg_mem_dest, freed by the
// caller even on failure); false when libjpeg reported an error
// (ops/jpeg_error.h).
bool Compress(jpeg_compress_struct& cinfo, const Tensor& image, const EncodeJpegOptions& options,
              unsigned char** buffer, unsigned long* size) {
  if (setjmp(reinterpret_cast<JpegErrorManager*>(cinfo.err)->jump)) return false;
  jpeg_create_compress(&cinfo);
  jpeg_mem_dest(&cinfo, buffer, size);
  cinfo.image_height = static_cast<JDIMENSION>(image.dim(0));
  cinfo.image_width = static_cast<JDIMENSION>(image.dim(1));
  cinfo.input_components = static_cast<int>(image.dim(2));
  cinfo.in_color_space = image.dim(2) == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, options.quality, TRUE);
  if (image.dim(2) == 3 && options.subsampling == ChromaSubsampling::k444) {
    cinfo.comp_info[0].h_samp_factor = cinfo.comp_info[0].v_samp_factor = 1;
  }
  jpeg_start_compress(&cinfo, TRUE);
  const size_t stride = static_cast<size_t>(image.dim(1) * image.dim(2));
  const uint8_t* pixels = image.data<uint8_t>();
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row[1] = {const_cast<JSAMPLE*>(pixels + cinfo.next_scanline * stride)};
    jpeg_write_scanlines(&cinfo, row, 1);
  }
  jpeg_finish_compress(&cinfo);
  return true;
}

}  // namespace

Result<std::string> EncodeJpeg(const Tensor& image, const EncodeJpegOptions& options) {
  constexpr int64_t kMaxJpegDim = 65500;
  if (image.dtype() != DType::kUInt8 || image.rank() != 3 || (image.dim(2) != 1 && image.dim(2) != 3) ||
      image.dim(0) < 1 || image.dim(1) < 1 || image.dim(0) > kMaxJpegDim || image.dim(1) > kMaxJpegDim) {
    return InvalidArgumentError("encode_jpeg: expected a uint8 image [H, W, 1 or 3] with H and W in 1..",
                                kMaxJpegDim, ", got ", image.dtype(), image.shape());
  }
  if (options.quality < 1 || options.quality > 100) {
    return InvalidArgumentError("encode_jpeg: quality must be in 1..100, got ", options.quality);
  }
  jpeg_compress_struct cinfo{};
  JpegErrorManager err{};
  cinfo.err = InstallJpegErrorManager(err);
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
  const bool ok = Compress(cinfo, image, options, &buffer, &size);
  jpeg_destroy_compress(&cinfo);
  Result<std::string> out = ok ? Result<std::string>(std::string(reinterpret_cast<char*>(buffer), size))
                               : Result<std::string>(InternalError("encode_jpeg: libjpeg: ", err.message));
  std::free(buffer);
  return out;
}

}  // namespace sluice

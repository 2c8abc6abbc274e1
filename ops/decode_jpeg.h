// DecodeJpeg: JPEG bytes to an HWC uint8 image, on libjpeg-turbo's libjpeg
// API, with the options of tf.io.decode_jpeg that change pixels:
//   channels   0: as encoded (1 for grayscale, 3 for colour), 1: grayscale
//              (the luma plane), 3: RGB (grayscale replicated);
//   ratio      1, 2, 4 or 8: a scaled IDCT that decodes straight to
//              ceil(size / ratio), much faster than decoding and shrinking;
//   dct_method kAccurate (libjpeg's JDCT_ISLOW, TensorFlow's default) or
//              kFast (JDCT_IFAST).
// Upsampling of subsampled chroma is libjpeg's "fancy" (triangular) one, as
// in TensorFlow and djpeg, so pixels equal `djpeg -dct int|fast -scale 1/N`.
//
// Errors: empty, truncated or corrupt data is DataLoss carrying libjpeg's
// own message; libjpeg's warnings (corrupt data it would otherwise patch
// over with grey, a premature end of data) are errors too, as
// tf.io.decode_jpeg with try_recover_truncated=false. CMYK/YCCK JPEGs are
// Unimplemented. The header's size is untrusted: ImageShape
// (ops/image_size.h) bounds it by max_pixels before anything is allocated
// (ResourceExhausted), and the output is allocated against the host's
// memory.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/crop_image.h"
#include "sluice/ops/image_size.h"

namespace sluice {

enum class JpegDctMethod { kAccurate, kFast };

struct DecodeJpegOptions {
  int channels = 0;  // 0, 1 or 3
  int ratio = 1;     // 1, 2, 4 or 8
  JpegDctMethod dct_method = JpegDctMethod::kAccurate;
  // The largest image (height * width of the encoded image) accepted.
  int64_t max_pixels = kDefaultMaxImagePixels;
};

// InvalidArgument when an option is out of range.
Status CheckDecodeJpegOptions(const DecodeJpegOptions& options);

Result<Tensor> DecodeJpeg(std::string_view bytes, const DecodeJpegOptions& options = {});

// Picks the window to decode from the decoded image's height and width
// (after `ratio`); an error it returns is DecodeJpegCrop's.
using ChooseCropWindow = std::function<Result<CropWindow>(int64_t height, int64_t width)>;

// The size a crop-window decode is resized to afterwards; {0, 0}: none.
struct CropResizeTarget {
  int64_t height = 0;
  int64_t width = 0;
};

// Decodes only the window `choose` picks: rows above it are skipped
// (jpeg_skip_scanlines), columns outside the iMCU columns that hold it are
// never decoded (jpeg_crop_scanline), and rows below it are left undecoded.
// Without a target the pixels equal those of DecodeJpeg's full image in the
// window. With a target (both sides positive; `ratio` must be 1), the
// window is decoded with the scaled IDCT of ops/jpeg_crop_scale.h: the
// result is the window at scale M/8, each side >= the target's, ready to be
// resized to it. Corrupt data outside the decoded part may go unnoticed. A
// window outside the image is InvalidArgument.
Result<Tensor> DecodeJpegCrop(std::string_view bytes, const ChooseCropWindow& choose,
                              const DecodeJpegOptions& options = {}, const CropResizeTarget& target = {});

// DecodeJpegCrop's decode without its last copy, for a caller that reads the
// window in place (ResizeImageWindow): the window's rows at the width
// libjpeg decodes them (the whole iMCU columns around the window), and the
// window within those rows.
struct DecodedJpegWindow {
  Tensor rows;        // uint8 [window.height, decoded width, channels]
  CropWindow window;  // top 0; left + width <= rows.dim(1)
};
Result<DecodedJpegWindow> DecodeJpegCropRows(std::string_view bytes, const ChooseCropWindow& choose,
                                             const DecodeJpegOptions& options = {},
                                             const CropResizeTarget& target = {});

// "accurate" / "fast", and back (InvalidArgument naming the accepted names).
std::string_view JpegDctMethodName(JpegDctMethod method);
Result<JpegDctMethod> ParseJpegDctMethod(std::string_view name);

}  // namespace sluice

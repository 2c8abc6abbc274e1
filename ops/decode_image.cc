#include "sluice/ops/decode_image.h"

#include "sluice/ops/decode_jpeg.h"
#include "sluice/ops/decode_png.h"

namespace sluice {

ImageFormat DetectImageFormat(std::string_view bytes) {
  if (bytes.starts_with("\xFF\xD8\xFF")) return ImageFormat::kJpeg;
  if (bytes.starts_with(std::string_view("\x89PNG\r\n\x1A\n", 8))) return ImageFormat::kPng;
  return ImageFormat::kUnknown;
}

Status CheckDecodeImageOptions(const DecodeImageOptions& options) {
  if (options.channels != 0 && options.channels != 1 && options.channels != 3) {
    return InvalidArgumentError("channels must be 0, 1 or 3, got ", options.channels);
  }
  return CheckMaxPixels(options.max_pixels);
}

Result<Tensor> DecodeImage(std::string_view bytes, const DecodeImageOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckDecodeImageOptions(options));
  if (bytes.empty()) return DataLossError("image data is empty (0 bytes)");
  switch (DetectImageFormat(bytes)) {
    case ImageFormat::kJpeg:
      return DecodeJpeg(bytes, {.channels = options.channels, .max_pixels = options.max_pixels});
    case ImageFormat::kPng:
      return DecodePng(bytes, {.channels = options.channels, .max_pixels = options.max_pixels});
    case ImageFormat::kUnknown: break;
  }
  return InvalidArgumentError("image data of ", bytes.size(),
                              " bytes is neither JPEG nor PNG (unknown signature)");
}

}  // namespace sluice

// DecodeImage: JPEG or PNG bytes to an HWC uint8 image, the format told by
// the data's signature (tf.io.decode_image for these two formats): JPEG
// through DecodeJpeg (accurate DCT, full size), PNG through DecodePng.
// channels 0 (as encoded), 1 or 3. Data of neither format is
// InvalidArgument; empty data is DataLoss; the decoders' own errors as
// theirs.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/image_size.h"

namespace sluice {

enum class ImageFormat { kUnknown, kJpeg, kPng };

// The format whose signature starts `bytes`: JPEG's SOI marker FF D8 FF, or
// PNG's 8-byte signature.
ImageFormat DetectImageFormat(std::string_view bytes);

struct DecodeImageOptions {
  int channels = 0;  // 0, 1 or 3
  int64_t max_pixels = kDefaultMaxImagePixels;
};

// InvalidArgument when an option is out of range.
Status CheckDecodeImageOptions(const DecodeImageOptions& options);

Result<Tensor> DecodeImage(std::string_view bytes, const DecodeImageOptions& options = {});

}  // namespace sluice

// DecodePng: PNG bytes to an HWC uint8 image, on libpng, as
// tf.io.decode_png with dtype uint8:
//   channels 0: as encoded (1 gray, 2 gray + alpha, 3 RGB, 4 RGBA; a
//            palette image gives 3, or 4 with transparency), 1: gray (from
//            colour: libpng's default luma weights), 3: RGB, 4: RGBA
//            (opaque alpha added where the image has none).
// Palette and sub-8-bit gray images are expanded; interlaced images are
// decoded whole. No gamma correction: values are the stored ones.
// 16-bit images are Unimplemented (Sluice has no uint16 dtype).
//
// Errors: empty, truncated or corrupt data (a bad signature, a CRC
// mismatch, missing image data) is DataLoss carrying libpng's message. The
// header's size is untrusted: ImageShape (ops/image_size.h) bounds it by
// max_pixels before the output is allocated (ResourceExhausted).
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/image_size.h"

namespace sluice {

struct DecodePngOptions {
  int channels = 0;  // 0, 1, 3 or 4
  // The largest image (height * width) accepted.
  int64_t max_pixels = kDefaultMaxImagePixels;
};

// InvalidArgument when an option is out of range.
Status CheckDecodePngOptions(const DecodePngOptions& options);

Result<Tensor> DecodePng(std::string_view bytes, const DecodePngOptions& options = {});

}  // namespace sluice

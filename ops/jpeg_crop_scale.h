// The scaled IDCT a crop-window decode uses when the window is resized
// afterwards: libjpeg-turbo decodes a JPEG at scale M/8, and at M = 1..4
// it does so faster than at full size (SIMD IDCTs for 1/8, 2/8 and 4/8; 3/8
// as fast as 4/8), so a window at least twice the size it is resized to is
// decoded at the smallest such scale that keeps it at least that size, and
// the resize then shrinks less. Scales 5/8 to 7/8 are left out: they run
// in plain C, slower than the full-size decode (tjbench, accurate DCT, a
// 1600x1200 4:2:0 picture: 243, 226 and 172 Mpixels/s against 268 at 8/8
// and 330 at 4/8).
//
// The rule, exact: M is the smallest integer in 1..4 with
//   floor(window.height * M / 8) >= out_height and
//   floor(window.width * M / 8) >= out_width,
// or 8 (full size) when none qualifies. At scale M/8 the decoded image
// is ceil(H * M / 8) x ceil(W * M / 8) (libjpeg's own rounding) and the window
// maps to rows [round(top * M / 8), round((top + height) * M / 8)) and the
// columns likewise (round = half up), which holds at least
// floor(height * M / 8) >= out_height rows.
// Thread safety: pure functions.
#pragma once

#include <cstdint>

#include "sluice/ops/crop_image.h"

namespace sluice {

// The numerator M of the scale M/8 for decoding `window` before resizing it
// to out_height x out_width. REQUIRES: the window's and the output's sides
// are positive.
int JpegCropScale(const CropWindow& window, int64_t out_height, int64_t out_width);

// `window` of an image, as the window of the image decoded at scale
// numerator/8 (the rule above). REQUIRES: numerator in 1..8 and the window
// non-empty and inside the image.
CropWindow ScaleCropWindow(const CropWindow& window, int numerator);

}  // namespace sluice

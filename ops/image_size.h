// The size checks every image kernel runs before it allocates: an image's
// height, width and channel count come from the image's own header (or a
// spec), so they are untrusted. ImageShape turns them into the HWC shape of
// an output tensor, or an error: dims must be positive, and
// height * width must not exceed `max_pixels` (overflow-checked), so a
// 65535 x 65535 header in a 2 KiB file is ResourceExhausted before a byte is
// allocated.
// ImageDimsOf reads the dims of an image tensor, for the kernels that take
// images: [H, W, C], or a batch [N, H, W, C].
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/shape.h"
#include "sluice/core/status.h"
#include "sluice/core/tensor.h"

namespace sluice {

// The default bound on an image's pixel count (height * width): 2^27, e.g.
// 16384 x 8192; as RGB uint8 that is 384 MiB.
inline constexpr int64_t kDefaultMaxImagePixels = int64_t{1} << 27;

// InvalidArgument unless max_pixels (an option of the decoders) is > 0.
Status CheckMaxPixels(int64_t max_pixels);

// [height, width, channels], or InvalidArgument when a dim is not positive,
// or ResourceExhausted when height * width exceeds max_pixels. `what` starts
// the message ("JPEG image").
Result<Shape> ImageShape(std::string_view what, int64_t height, int64_t width, int64_t channels,
                         int64_t max_pixels);

// The dims of images of rank 3 (HWC) or 4 (NHWC); ImageDimsOf is
// InvalidArgument for another rank or a string dtype.
struct ImageDims {
  int64_t batch = 1;  // 1 for an unbatched image
  int64_t height = 0;
  int64_t width = 0;
  int64_t channels = 0;
  bool batched = false;
};
Result<ImageDims> ImageDimsOf(const Tensor& images);

}  // namespace sluice

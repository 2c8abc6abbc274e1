// The crop window of RandomResizedCrop, by torchvision's rule
// (RandomResizedCrop.get_params), from a stream of uniform numbers so that
// the caller decides where they come from (a per-element seed):
//   up to `attempts` times: area = H * W * U(scale), aspect =
//   exp(U(log ratio_min, log ratio_max)), w = round(sqrt(area * aspect)),
//   h = round(sqrt(area / aspect)) (round half to even, as Python's round);
//   if 0 < w <= W and 0 < h <= H, the window is at top = floor(U * (H - h + 1)),
//   left = floor(U * (W - w + 1)).
//   Otherwise a centred crop of the whole image clamped to the ratio range:
//   W / H below ratio_min gives w = W, h = round(W / ratio_min); above
//   ratio_max gives h = H, w = round(H * ratio_max); top = (H - h) / 2 and
//   left = (W - w) / 2, rounded down.
// Attempt a draws uniform(4a) .. uniform(4a + 3): scale, aspect, top, left.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>

#include "sluice/core/status.h"
#include "sluice/ops/crop_image.h"

namespace sluice {

struct RandomResizedCropOptions {
  double scale_min = 0.08;  // of the image's area
  double scale_max = 1.0;
  double ratio_min = 3.0 / 4;  // width / height
  double ratio_max = 4.0 / 3;
  int attempts = 10;
};

// At most this many attempts.
inline constexpr int kMaxRandomCropAttempts = 1000;

// InvalidArgument unless 0 < scale_min <= scale_max, 0 < ratio_min <=
// ratio_max (all finite) and 1 <= attempts <= kMaxRandomCropAttempts.
Status CheckRandomResizedCropOptions(const RandomResizedCropOptions& options);

// The k-th uniform number in [0, 1) of the stream a window is drawn from.
using UniformStream = std::function<double(int64_t k)>;

// The window for an image of height x width (both positive). REQUIRES:
// options pass CheckRandomResizedCropOptions.
CropWindow RandomResizedCropWindow(int64_t height, int64_t width,
                                   const RandomResizedCropOptions& options,
                                   const UniformStream& uniform);

}  // namespace sluice

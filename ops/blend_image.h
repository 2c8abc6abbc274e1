// BlendImage: torchvision's _blend family of adjustments of HWC images,
// factor * image + (1 - factor) * target, as its tensor path computes them:
// in float32, clamped to [0, white], and truncated to uint8 (as torch
// casts). The target is
//   kBrightness: black;
//   kSaturation: the pixel's grayscale 0.2989 R + 0.587 G + 0.114 B
//                (truncated for uint8; a one-channel image stays);
//   kContrast:   the mean of the image's grayscale (of its one channel);
//   kSharpness:  the image smoothed by the 3x3 kernel [1 1 1; 1 5 1; 1 1 1]
//                / 13 (rounded for uint8), its border pixels kept; an image
//                of 2 rows or columns or fewer stays.
// These are the steps of AutoAugment, RandAugment and TrivialAugment, and
// of torchvision's RandomAdjustSharpness, each alone; ops/adjust_color.h is
// ColorJitter's chain, rounded once after its last step.
// Images are uint8 (white 255) or float32 (white `max_value`), one or three
// channels, [H, W, C] or a batch [N, H, W, C] (each image its own mean and
// smoothing); same dtype and shape out.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

enum class BlendTarget { kBrightness, kSaturation, kContrast, kSharpness };

// InvalidArgument for another dtype, a channel count other than 1 or 3, a
// negative or non-finite factor, or a max_value that is not positive and
// finite.
Result<Tensor> BlendImage(const Tensor& images, BlendTarget target, double factor, float max_value = 255);

}  // namespace sluice

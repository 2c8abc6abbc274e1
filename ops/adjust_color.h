// AdjustColor: brightness, contrast, saturation and hue changes of HWC
// images, as torchvision's functional adjust_* define them (the steps of
// its ColorJitter), applied in a given order:
//   brightness f: x * f;
//   contrast f:   f * x + (1 - f) * m, m the mean over the image of its
//                 grayscale 0.2989 R + 0.587 G + 0.114 B (the pixel itself
//                 for one channel);
//   saturation f: f * x + (1 - f) * gray(pixel);
//   hue f:        the pixel's HSV hue turned by f (a fraction of a turn,
//                 in [-0.5, 0.5]), saturation and value kept.
// Each step clamps to [0, white]. Saturation and hue leave a one-channel
// image as it is (torchvision's rule for grayscale).
//
// Images are uint8 (white 255) or float32 (white `max_value`: 255 for the
// pixels decoders and resize give, 1 for images scaled to [0, 1]), one or
// three channels, [H, W, C] or a batch [N, H, W, C] whose images are adjusted
// alike (contrast's mean is each image's own). The work is done in float; a
// uint8 result is rounded to nearest once, after the last step (torchvision
// rounds a uint8 image down after every step, so its results may sit a level
// or two below these). No adjustments give the images themselves.
// Thread safety: a pure function; the output is a fresh tensor, or the input.
#pragma once

#include <span>

#include "sluice/core/tensor.h"

namespace sluice {

enum class ColorProperty { kBrightness, kContrast, kSaturation, kHue };

struct ColorAdjustment {
  ColorProperty property = ColorProperty::kBrightness;
  double factor = 1;  // >= 0; for kHue in [-0.5, 0.5]
};

// InvalidArgument for another dtype, a channel count other than 1 or 3, a
// factor out of range, or a max_value that is not positive and finite.
Result<Tensor> AdjustColor(const Tensor& images, std::span<const ColorAdjustment> adjustments,
                           float max_value = 255);

}  // namespace sluice

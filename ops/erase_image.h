// EraseImage: torchvision's F.erase: a window of an image (or of every
// image of a batch) overwritten by fill values, as RandomErasing (Zhong et
// al.; DeiT's and timm's recipes) erases a random box of a normalised image.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"
#include "sluice/ops/crop_image.h"
#include "sluice/ops/crop_mirror_normalize.h"

namespace sluice {

// `images`: uint8 or float32 [C, H, W] / [N, C, H, W] (kCHW) or [H, W, C] /
// [N, H, W, C] (kHWC). `fill`: float32, either [C] (one value a channel) or
// the window's values in the images' layout, [C, h, w] or [h, w, C] (the same
// for every image of a batch); uint8 images take them converted as tf.cast
// converts (saturating). Same dtype and shape out.
// Errors: InvalidArgument for another dtype or rank, a window outside the
// image, or a fill of another shape.
Result<Tensor> EraseImage(const Tensor& images, const CropWindow& window, ImageLayout layout, const Tensor& fill);

}  // namespace sluice

// Tone curves of HWC images, as torchvision's functional ops define them:
// each maps every value of a channel through a table, fixed (Posterize) or
// made from the channel's own values (Equalize, Autocontrast). Images are
// [H, W, C] or a batch [N, H, W, C], each image and channel on its own;
// same dtype and shape out.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

// torchvision's posterize: keeps the top `bits` (0 to 8) bits of each
// uint8 value. InvalidArgument for another dtype or bits.
Result<Tensor> Posterize(const Tensor& images, int bits);

// torchvision's equalize: the channel's histogram spread so its cumulative
// counts are near even, by PIL's rule (step = the count of all but the last
// value present / 255; value v becomes (count below v + step / 2) / step,
// integer divisions; a channel with step 0 stays). uint8 only.
Result<Tensor> Equalize(const Tensor& images);

// torchvision's autocontrast: the channel's values scaled so its smallest
// becomes 0 and its largest white, in float32 (uint8 results truncated, as
// torch casts); a channel of one value stays. White is 255 for uint8 and
// max_value for float32 (torchvision's 1 for images in [0, 1]).
Result<Tensor> Autocontrast(const Tensor& images, float max_value = 255);

}  // namespace sluice

// Solarize: torchvision's solarize: every value at or above `threshold`
// becomes white minus it; the others stay. White is 255 for uint8 images and
// `max_value` for float32 ones (1 for images in [0, 1]). Any image shape;
// same dtype and shape.
// Errors: InvalidArgument for another dtype.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Solarize(const Tensor& images, double threshold, float max_value);

}  // namespace sluice

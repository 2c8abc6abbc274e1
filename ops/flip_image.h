// FlipImage: mirrors images left-right (tf.image.flip_left_right) or
// upside down (tf.image.flip_up_down): an image [H, W, C] or each image of a
// batch [N, H, W, C], any numeric dtype, values copied.
// Errors: InvalidArgument for a wrong rank or a string dtype.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

enum class FlipDirection { kLeftRight, kUpDown };

Result<Tensor> FlipImage(const Tensor& images, FlipDirection direction);

}  // namespace sluice

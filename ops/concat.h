// Concat: joins tensors of one dtype along an existing axis (negative counts
// from the end), as tf.concat; every other dimension must agree. Any numeric
// dtype; gradients split the output gradient back into the inputs' extents.
// At least one input, of rank >= 1; one input gives a copy.
// Thread safety: a pure function.
#pragma once

#include <span>

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Concat(std::span<const Tensor> values, int64_t axis);

class OpRegistry;
void RegisterConcatOp(OpRegistry& registry);

}  // namespace sluice

// Reshape: the same values in another shape with as many elements, as
// tf.reshape (with every dimension given). Any numeric dtype. The output is
// a fresh tensor, so the gradient tape sees a distinct value.
// Thread safety: a pure function.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Reshape(const Tensor& x, const Shape& shape);

class OpRegistry;
void RegisterReshapeOp(OpRegistry& registry);

}  // namespace sluice

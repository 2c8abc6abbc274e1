// OnesLike / ZerosLike: a tensor of x's dtype and shape filled with 1 or 0
// (the tape's seed gradient and the gradient of an output nothing used).
// Not differentiable. Any numeric dtype.
// Thread safety: pure functions.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> OnesLike(const Tensor& x);
Result<Tensor> ZerosLike(const Tensor& x);

class OpRegistry;
void RegisterFillOps(OpRegistry& registry);

}  // namespace sluice

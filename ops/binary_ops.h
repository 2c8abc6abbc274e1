// Element-wise arithmetic with broadcasting (ops/broadcast.h): Add, Sub,
// Mul, Div on float32 / float64 tensors of the same dtype, as tf.math's.
// Gradients sum over the broadcast dimensions back to each input's shape.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Add(const Tensor& a, const Tensor& b);
Result<Tensor> Sub(const Tensor& a, const Tensor& b);
Result<Tensor> Mul(const Tensor& a, const Tensor& b);
Result<Tensor> Div(const Tensor& a, const Tensor& b);

class OpRegistry;
void RegisterBinaryOps(OpRegistry& registry);

}  // namespace sluice

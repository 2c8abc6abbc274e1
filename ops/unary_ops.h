// Element-wise functions of one float32 / float64 tensor: Neg, Relu,
// Sigmoid, Tanh, Exp, Log, as tf.math's. Backward passes use the output
// where it is cheaper (sigmoid' = y(1 - y), tanh' = 1 - y²).
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Neg(const Tensor& x);
Result<Tensor> Relu(const Tensor& x);
Result<Tensor> Sigmoid(const Tensor& x);
Result<Tensor> Tanh(const Tensor& x);
Result<Tensor> Exp(const Tensor& x);
Result<Tensor> Log(const Tensor& x);

class OpRegistry;
void RegisterUnaryOps(OpRegistry& registry);

}  // namespace sluice

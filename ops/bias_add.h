// BiasAdd: adds a bias vector along the last dimension, as tf.nn.bias_add:
// value [..., C] + bias [C]. float32 / float64. The bias gradient sums the
// output gradient over every dimension but the last.
// Thread safety: a pure function.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> BiasAdd(const Tensor& value, const Tensor& bias);

class OpRegistry;
void RegisterBiasAddOp(OpRegistry& registry);

}  // namespace sluice

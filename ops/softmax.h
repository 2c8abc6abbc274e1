// Softmax and LogSoftmax over the last dimension, as tf.nn.softmax /
// tf.nn.log_softmax: computed from x - max(x) so large logits do not
// overflow. float32 / float64, rank >= 1. Gradients use only the output:
// softmax' = y (g - sum(g y)), log_softmax' = g - exp(y) sum(g).
// Thread safety: pure functions.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Softmax(const Tensor& logits);
Result<Tensor> LogSoftmax(const Tensor& logits);

class OpRegistry;
void RegisterSoftmaxOps(OpRegistry& registry);

}  // namespace sluice

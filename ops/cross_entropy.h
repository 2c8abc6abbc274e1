// Per-example losses computed from logits in one numerically stable kernel,
// as TensorFlow's:
//  - SparseSoftmaxCrossEntropyWithLogits(labels [N] int32/int64, logits
//    [N, C]) -> [N]: -log softmax(logits)[label]. A label outside [0, C) is
//    InvalidArgument naming the row and the label. Gradient (logits only):
//    softmax - one_hot(label).
//  - SigmoidCrossEntropyWithLogits(labels, logits), same shape and float
//    dtype -> elementwise max(x, 0) - x z + log(1 + exp(-|x|)). Gradient
//    (logits only): sigmoid(x) - z.
//  - MeanSquaredError(labels, predictions), same shape [..., D] -> [...]:
//    the mean of (predictions - labels)^2 over the last dimension, as
//    tf.keras.losses.mean_squared_error. Gradient for both inputs. An empty
//    last dimension gives NaN (0 / 0), as Keras does.
// Labels are constants for the two cross entropies (their labels input gets
// no gradient, as in TensorFlow's fused kernels). Each backward pass is one
// fused kernel (a "*_grad" op), so it allocates only the gradient.
// Thread safety: pure functions.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> SparseSoftmaxCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits);
Result<Tensor> SigmoidCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits);
Result<Tensor> MeanSquaredError(const Tensor& labels, const Tensor& predictions);

class OpRegistry;
void RegisterCrossEntropyOps(OpRegistry& registry);

}  // namespace sluice

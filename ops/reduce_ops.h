// Reductions and their inverse: Sum and Mean over axes (as tf.reduce_sum /
// tf.reduce_mean; no axes = all axes, negative axes count from the end),
// BroadcastTo (as tf.broadcast_to), and SumToShape, which sums a broadcast
// gradient back to an input's shape.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Sum(const Tensor& x, std::vector<int64_t> axes = {}, bool keep_dims = false);
Result<Tensor> Mean(const Tensor& x, std::vector<int64_t> axes = {}, bool keep_dims = false);
Result<Tensor> BroadcastTo(const Tensor& x, const Shape& shape);
// Sums `x` over the dimensions that broadcasting `shape` to x's shape added
// or stretched. REQUIRES: `shape` broadcasts to x's shape.
Result<Tensor> SumToShape(const Tensor& x, const Shape& shape);

class OpRegistry;
void RegisterReduceOps(OpRegistry& registry);

}  // namespace sluice

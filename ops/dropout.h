// Dropout: zeroes each value with probability `rate` and scales the rest by
// 1 / (1 - rate), as tf.nn.dropout, so the expected value is unchanged. The
// pattern is a pure function of `seed` (same seed, same mask), which keeps
// training reproducible and checkpointable. rate in [0, 1).
// Thread safety: a pure function.
#pragma once

#include <cstdint>

#include "core/tensor.h"

namespace sluice {

Result<Tensor> Dropout(const Tensor& x, double rate, uint64_t seed);

class OpRegistry;
void RegisterDropoutOp(OpRegistry& registry);

}  // namespace sluice

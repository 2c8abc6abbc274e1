// Dropout: zeroes each value with probability `rate` and scales the rest by
// 1 / (1 - rate), as tf.nn.dropout, so the expected value is unchanged. The
// pattern is a pure function of `seed` (same seed, same mask), which keeps
// training reproducible and checkpointable. rate in [0, 1); rate 0 returns
// the values unchanged.
//
// The op "dropout" has two outputs, the result and the scaled mask (0 or
// 1 / (1 - rate)), so its gradient is g * mask. Element i is kept when the
// i-th output of a SplitMix64 stream seeded from `seed` is >= rate: a
// counter-based draw, the same however threads split the work, and the same
// for position i whatever the tensor's shape.
// Thread safety: a pure function.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Dropout(const Tensor& x, double rate, uint64_t seed);

class OpRegistry;
void RegisterDropoutOp(OpRegistry& registry);

}  // namespace sluice

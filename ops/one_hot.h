// OneHot: turns integer class indices into one-hot vectors, as tf.one_hot
// with on_value 1 and off_value 0.
//
// `indices` (uint8, int32 or int64, any shape S with rank < kMaxRank) gives
// an output of shape S + [depth] and dtype `dtype` (any numeric dtype). An
// index outside [0, depth) gives an all-zero row. depth must be > 0. An
// output whose byte size overflows is InvalidArgument; one larger than the
// host's memory, or that can't be allocated, is ResourceExhausted.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> OneHot(const Tensor& indices, int64_t depth, DType dtype = DType::kFloat32);

}  // namespace sluice

// Weight initializers, as Keras': a kernel of shape [fan_in, fan_out] (or a
// table [rows, columns]) drawn from the model's seeded generator, so the same
// seed gives the same initial model.
//  - kGlorotUniform: U(-l, l), l = sqrt(6 / (fan_in + fan_out)) (Keras' default)
//  - kHeUniform: U(-l, l), l = sqrt(6 / fan_in) (for relu layers)
//  - kUniform: U(-0.05, 0.05) (Keras' Embedding default)
//  - kZeros
// Thread safety: pure functions of the generator.
#pragma once

#include <random>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

enum class Initializer { kGlorotUniform, kHeUniform, kUniform, kZeros };

std::string_view InitializerName(Initializer initializer);
Result<Initializer> ParseInitializer(std::string_view name);

// A float32 tensor of `shape` (rank 2: [fan_in, fan_out], or rank 1: zeros
// or uniform with fan_in = fan_out = dim).
Tensor Initialize(Initializer initializer, const Shape& shape, std::mt19937_64& rng);

}  // namespace sluice

// The activations a layer can end with, by their Keras names.
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

enum class Activation { kLinear, kRelu, kSigmoid, kTanh, kSoftmax };

std::string_view ActivationName(Activation activation);
Result<Activation> ParseActivation(std::string_view name);
// activation(x) through the ops (so the tape records it).
Result<Tensor> ApplyActivation(Activation activation, const Tensor& x);

}  // namespace sluice

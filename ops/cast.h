// Cast: converts a tensor's values to another dtype, as tf.cast does.
//
// Numeric to numeric converts each value with ConvertValue (core/dtype.h):
// integer narrowing wraps, floating to integer truncates and saturates (NaN
// becomes 0), anything to bool is `value != 0`, float16 / bfloat16 round to
// nearest even. string to string is the identity (a copy); string to or
// from a numeric dtype is InvalidArgument.
//
// Cast is the registered op "cast". A cast between floating dtypes is
// differentiable: the gradient is cast back to the input's dtype. Any other
// cast gives its input no gradient (as tf.cast, whose integer side is not
// differentiable).
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Cast(const Tensor& x, DType to);

class OpRegistry;
void RegisterCastOp(OpRegistry& registry);

}  // namespace sluice

// Cast: converts a tensor's values to another dtype, as tf.cast does.
//
// Numeric to numeric converts each value: integer narrowing wraps (two's
// complement, like static_cast), floating to integer truncates toward zero
// and saturates at the target's range with NaN becoming 0 (so no input is
// undefined behaviour), anything to bool is `value != 0`, and float16 /
// bfloat16 round to nearest even. string to string is the identity (a copy);
// string to or from a numeric dtype is InvalidArgument.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "core/tensor.h"

namespace sluice {

Result<Tensor> Cast(const Tensor& x, DType to);

}  // namespace sluice

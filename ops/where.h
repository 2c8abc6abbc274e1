// Where: picks, element by element, a where `condition` is true and b
// where it is false (tf.where with three arguments, np.where), with NumPy
// broadcasting of all three (ops/broadcast.h). `condition` is bool; a and
// b have one dtype, any dtype (strings are copied).
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> Where(const Tensor& condition, const Tensor& a, const Tensor& b);

}  // namespace sluice

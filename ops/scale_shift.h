// ScaleShift: y = x * scale + shift, element by element (the affine step of
// input normalisation, e.g. scale = 1/255 for image bytes).
//
// Floating inputs keep their dtype; integer and bool inputs produce float32,
// since scaled integers are rarely integers. Each value is computed in double
// and rounded once to the output dtype. A string input is InvalidArgument.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> ScaleShift(const Tensor& x, double scale, double shift);

// The dtype ScaleShift produces for an input of `dtype`. REQUIRES: not string.
DType ScaleShiftOutputDType(DType dtype);

}  // namespace sluice

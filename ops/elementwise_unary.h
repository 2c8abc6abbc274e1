// Element-wise functions of one tensor for pipeline expressions
// (dataset/expression.h), on every dtype but float16 and bfloat16:
// - neg, abs: integer and floating dtypes; integers wrap (-min and |min|
//   are min).
// - exp, log, sqrt, floor, round: floating dtypes, IEEE 754 results
//   (log(0) = -inf, log(-1) and sqrt(-1) are NaN); round is half to even,
//   as tf.round.
// - logical_not: bool.
// - string_length: string to int32, the byte count of each string (as
//   tf.strings.length with unit BYTE).
// A dtype the function does not take is InvalidArgument.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

enum class UnaryOp { kNeg, kAbs, kExp, kLog, kSqrt, kFloor, kRound, kLogicalNot, kStringLength };

std::string_view UnaryOpName(UnaryOp op);

// The dtype `op` gives for an input of `dtype`, or InvalidArgument naming
// the function and the dtype when it does not take it.
Result<DType> UnaryOutputDType(UnaryOp op, DType dtype);

Result<Tensor> ElementwiseUnary(UnaryOp op, const Tensor& x);

}  // namespace sluice

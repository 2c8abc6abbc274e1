// Element-wise binary functions of two tensors of one dtype, with NumPy
// broadcasting (ops/broadcast.h): the arithmetic, comparison and logical
// operators of pipeline expressions (dataset/expression.h).
//
// Dtypes: bool, uint8, int32, int64, float32, float64 (float16 and bfloat16
// are cast first); string for kEqual / kNotEqual only. A dtype an operator
// does not take, or operands of different dtypes, is InvalidArgument.
// - Arithmetic (add, sub, mul, div, mod, min, max) takes the integer and
//   floating dtypes and gives the operands' dtype. Integers wrap on
//   overflow (two's complement); div truncates toward zero and mod takes
//   the dividend's sign (tf.math.truncatediv / truncatemod); a zero divisor
//   is InvalidArgument ("integer division by zero"); the minimum divided by
//   -1 wraps to the minimum and its mod is 0. Floating div and mod follow
//   IEEE 754 (x / 0 is ±inf or NaN; mod is fmod); min and max give NaN when
//   either operand is NaN.
// - Comparisons give bool; strings compare byte-wise.
// - and / or take and give bool.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

enum class BinaryOp {
  kAdd, kSub, kMul, kDiv, kMod, kMin, kMax,
  kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual,
  kAnd, kOr,
};

// "add", "less_equal", ...: the op's name in error messages.
std::string_view BinaryOpName(BinaryOp op);

// The dtype `op` gives for operands of `dtype`, or InvalidArgument naming
// the op and the dtype when it does not take it.
Result<DType> BinaryOutputDType(BinaryOp op, DType dtype);

Result<Tensor> ElementwiseBinary(BinaryOp op, const Tensor& a, const Tensor& b);

}  // namespace sluice

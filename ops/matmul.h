// MatMul: the matrix product of two rank-2 float32 / float64 tensors,
// optionally transposing either first, as tf.linalg.matmul with
// transpose_a / transpose_b. The CPU kernel is OpenBLAS's GEMM.
// Thread safety: a pure function.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> MatMul(const Tensor& a, const Tensor& b, bool transpose_a = false, bool transpose_b = false);

class OpRegistry;
void RegisterMatMulOp(OpRegistry& registry);

}  // namespace sluice

#include "sluice/ops/matmul.h"

#include <cblas.h>

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferMatMul(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("matmul", inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckSameDType("matmul", inputs, 1));
  SLUICE_RETURN_IF_ERROR(CheckRank("matmul", inputs, 0, 2));
  SLUICE_RETURN_IF_ERROR(CheckRank("matmul", inputs, 1, 2));
  const bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const Shape& a = inputs[0].shape();
  const Shape& b = inputs[1].shape();
  const int64_t m = a.dim(ta ? 1 : 0), k = a.dim(ta ? 0 : 1);
  const int64_t kb = b.dim(tb ? 1 : 0), n = b.dim(tb ? 0 : 1);
  if (k != kb) {
    return InvalidArgumentError("matmul: inner dimensions differ: a has shape ", a,
                                ta ? " (transposed)" : "", " and b has shape ", b,
                                tb ? " (transposed)" : "", "; ", k, " vs ", kb);
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), Shape{m, n}}};
}

Status MatMulKernel(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
#if defined(__SANITIZE_THREAD__)
  // TSan builds: OpenBLAS's own threads are not instrumented (unlike
  // oneTBB's, see scripts/build_tsan_tbb.sh), so GEMMs stay on the calling
  // thread.
  static const bool serial_blas = (openblas_set_num_threads(1), true);
  (void)serial_blas;
#endif
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& c = outputs[0];
  const bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto m = static_cast<int>(c.dim(0)), n = static_cast<int>(c.dim(1));
  const auto k = static_cast<int>(a.dim(ta ? 0 : 1));
  const auto lda = static_cast<int>(a.dim(1)), ldb = static_cast<int>(b.dim(1));
  const CBLAS_TRANSPOSE trans_a = ta ? CblasTrans : CblasNoTrans;
  const CBLAS_TRANSPOSE trans_b = tb ? CblasTrans : CblasNoTrans;
  if (c.NumElements() == 0) return OkStatus();
  if (c.dtype() == DType::kFloat32) {
    cblas_sgemm(CblasRowMajor, trans_a, trans_b, m, n, k, 1.0f, a.data<float>(), lda, b.data<float>(), ldb,
                0.0f, c.mutable_data<float>(), n);
  } else {
    cblas_dgemm(CblasRowMajor, trans_a, trans_b, m, n, k, 1.0, a.data<double>(), lda, b.data<double>(), ldb,
                0.0, c.mutable_data<double>(), n);
  }
  return OkStatus();
}

// For C = op(A) op(B): dA and dB as products of G with the other operand,
// chosen so that no transpose is ever materialised.
Result<std::vector<Tensor>> MatMulGradient(const GradientContext& c) {
  const Tensor& a = c.inputs[0];
  const Tensor& b = c.inputs[1];
  const Tensor& g = c.output_grads[0];
  const bool ta = c.attrs.GetBool("transpose_a"), tb = c.attrs.GetBool("transpose_b");
  // An operand the caller takes no gradient for (a layer's input batch)
  // skips its product: a whole GEMM of the backward pass.
  Tensor da, db;
  if (c.NeedsGradient(0)) {
    SLUICE_ASSIGN_OR_RETURN(
        da, !ta ? MatMul(g, b, false, !tb) : (tb ? MatMul(b, g, true, true) : MatMul(b, g, false, true)));
  }
  if (c.NeedsGradient(1)) {
    SLUICE_ASSIGN_OR_RETURN(
        db, !tb ? MatMul(a, g, !ta, false) : (ta ? MatMul(g, a, true, true) : MatMul(g, a, true, false)));
  }
  return std::vector<Tensor>{std::move(da), std::move(db)};
}

}  // namespace

Result<Tensor> MatMul(const Tensor& a, const Tensor& b, bool transpose_a, bool transpose_b) {
  static const OpDef& def = OpRegistry::Global().Get("matmul");
  const Tensor inputs[] = {a, b};
  return RunSingleOutputOp(def, inputs, OpAttrs{{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

void RegisterMatMulOp(OpRegistry& registry) {
  registry.Register({.name = "matmul", .num_inputs = 2, .infer = InferMatMul, .gradient = MatMulGradient,
                     .cpu_kernel = MatMulKernel});
}

}  // namespace sluice

// CUDA kernel of matmul (ops/matmul.cc) through cuBLAS. Row-major
// C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so the operands go
// to cuBLAS swapped, with no transposed copy. cuBLAS's default math mode
// keeps float32 GEMMs in float32 (TF32 only when asked for), as the CPU.
#include <mutex>

#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

constexpr int kMaxDevices = 64;

// One cuBLAS handle per device, made on first use and kept for the process.
// A handle is not safe to use from two threads at once, so calls on one
// device hold its mutex (GEMMs on a device share its compute stream anyway).
struct CublasHandles {
  std::mutex mu[kMaxDevices];
  cublasHandle_t handle[kMaxDevices] = {};
};

CublasHandles& Handles() {
  static auto* handles = new CublasHandles;  // never destroyed: outlives every thread's last GEMM
  return *handles;
}

Status MatMul(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& c = outputs[0];
  if (c.NumElements() == 0) return OkStatus();
  const bool ta = attrs.GetBool("transpose_a"), tb = attrs.GetBool("transpose_b");
  const auto m = static_cast<int>(c.dim(0)), n = static_cast<int>(c.dim(1));
  const auto k = static_cast<int>(a.dim(ta ? 0 : 1));
  const auto lda = static_cast<int>(a.dim(1)), ldb = static_cast<int>(b.dim(1));
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(c));
  if (k == 0) {  // an empty sum; cuBLAS would reject the leading dimension 0
    SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(c.raw_data(), 0, c.NumBytes(), launch.stream));
    return OkStatus();
  }
  if (launch.device >= kMaxDevices) return InternalError("matmul: device index ", launch.device, " is too large");
  CublasHandles& handles = Handles();
  std::lock_guard lock(handles.mu[launch.device]);
  cublasHandle_t& handle = handles.handle[launch.device];
  if (handle == nullptr) SLUICE_CUBLAS_RETURN_IF_ERROR(cublasCreate(&handle));
  SLUICE_CUBLAS_RETURN_IF_ERROR(cublasSetStream(handle, launch.stream));
  const cublasOperation_t op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (c.dtype() == DType::kFloat32) {
    const float alpha = 1, beta = 0;
    SLUICE_CUBLAS_RETURN_IF_ERROR(cublasSgemm(handle, op_b, op_a, n, m, k, &alpha, b.data<float>(), ldb,
                                              a.data<float>(), lda, &beta, c.mutable_data<float>(), n));
  } else {
    const double alpha = 1, beta = 0;
    SLUICE_CUBLAS_RETURN_IF_ERROR(cublasDgemm(handle, op_b, op_a, n, m, k, &alpha, b.data<double>(), ldb,
                                              a.data<double>(), lda, &beta, c.mutable_data<double>(), n));
  }
  return OkStatus();
}

}  // namespace

void RegisterMatMulCudaKernels(OpRegistry& registry) { registry.SetKernel("matmul", DeviceType::kCuda, MatMul); }

}  // namespace sluice

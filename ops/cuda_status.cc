#include "sluice/ops/cuda_status.h"

namespace sluice {

namespace {

// "<call> failed: <message> (<name>)"; out of memory is ResourceExhausted.
Status CallFailed(bool out_of_memory, std::string_view call, const char* message, const char* name) {
  const StatusCode code = out_of_memory ? StatusCode::kResourceExhausted : StatusCode::kInternal;
  return Status(code, StrCat(call, " failed: ", message, " (", name, ")"));
}

}  // namespace

Status CudaStatus(cudaError_t error, std::string_view call) {
  if (error == cudaSuccess) return OkStatus();
  return CallFailed(error == cudaErrorMemoryAllocation, call, cudaGetErrorString(error), cudaGetErrorName(error));
}

Status CublasStatus(cublasStatus_t status, std::string_view call) {
  if (status == CUBLAS_STATUS_SUCCESS) return OkStatus();
  return CallFailed(status == CUBLAS_STATUS_ALLOC_FAILED, call, cublasGetStatusString(status),
                    cublasGetStatusName(status));
}

Result<int> CudaDeviceCount() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Clear the sticky "last error" so later calls report their own.
    (void)cudaGetLastError();
    return CudaStatus(error, "cudaGetDeviceCount(&count)");
  }
  if (count == 0) return FailedPreconditionError("cudaGetDeviceCount(&count) found no CUDA device");
  return count;
}

}  // namespace sluice

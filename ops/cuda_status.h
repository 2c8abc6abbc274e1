// CUDA and cuBLAS results as Status values: every runtime and cuBLAS call in
// Sluice goes through SLUICE_CUDA_RETURN_IF_ERROR / SLUICE_CUBLAS_RETURN_IF_ERROR,
// so a failure says which call failed and CUDA's own message, e.g.
// "cudaMalloc(&data, bytes) failed: out of memory (cudaErrorMemoryAllocation)".
// Out-of-memory maps to ResourceExhausted, everything else to Internal.
// Only built where nvcc exists (includes the CUDA runtime's header).
// Thread safety: pure functions.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

// OkStatus() for cudaSuccess; otherwise an error naming `call`.
Status CudaStatus(cudaError_t error, std::string_view call);
Status CublasStatus(cublasStatus_t status, std::string_view call);

// The number of CUDA devices, or the reason there are none usable: without a
// driver the runtime says "insufficient driver" rather than "no device", so
// any error means no GPU.
Result<int> CudaDeviceCount();

}  // namespace sluice

#define SLUICE_CUDA_RETURN_IF_ERROR(call) SLUICE_RETURN_IF_ERROR(::sluice::CudaStatus((call), #call))
#define SLUICE_CUBLAS_RETURN_IF_ERROR(call) SLUICE_RETURN_IF_ERROR(::sluice::CublasStatus((call), #call))

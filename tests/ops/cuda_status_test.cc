#include "sluice/ops/cuda_status.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "cudaMalloc(&p, n)").ok());
  EXPECT_TRUE(CublasStatus(CUBLAS_STATUS_SUCCESS, "cublasSgemm(...)").ok());
}

TEST(CudaStatusTest, AnErrorNamesTheCallAndCudasMessage) {
  const Status status = CudaStatus(cudaErrorInvalidValue, "cudaMemcpyAsync(dst, src, n, kind, stream)");
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(status.message(), std::string("cudaMemcpyAsync(dst, src, n, kind, stream) failed: ") +
                                  cudaGetErrorString(cudaErrorInvalidValue) + " (cudaErrorInvalidValue)");
}

TEST(CudaStatusTest, OutOfMemoryIsResourceExhausted) {
  const Status status = CudaStatus(cudaErrorMemoryAllocation, "cudaMalloc(&block, bytes)");
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("cudaMalloc(&block, bytes) failed: "), std::string::npos);
  EXPECT_NE(status.message().find("(cudaErrorMemoryAllocation)"), std::string::npos);
  EXPECT_EQ(CublasStatus(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate(&handle)").code(),
            StatusCode::kResourceExhausted);
}

TEST(CudaStatusTest, CublasErrorsNameTheCall) {
  const Status status = CublasStatus(CUBLAS_STATUS_INVALID_VALUE, "cublasSgemm(handle, ...)");
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_NE(status.message().find("cublasSgemm(handle, ...) failed: "), std::string::npos);
  EXPECT_NE(status.message().find("CUBLAS_STATUS_INVALID_VALUE"), std::string::npos);
}

TEST(CudaStatusTest, DeviceCountIsANumberOrTheReasonThereIsNone) {
  const Result<int> count = CudaDeviceCount();
  if (count.ok()) {
    EXPECT_GT(*count, 0);
  } else {
    EXPECT_NE(count.status().message().find("cudaGetDeviceCount"), std::string::npos) << count.status().message();
  }
}

}  // namespace
}  // namespace sluice

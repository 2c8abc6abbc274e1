// RegisterCudaBackend on any machine, GPU or not: before it a GPU is the
// "no CUDA backend" error; after it ops have CUDA kernels
// (tests/ops/cuda_kernels_test.cc checks every op) and GPU calls reach
// CUDA, which either works or says why there is no device.
#include "sluice/model/cuda_backend.h"

#include <gtest/gtest.h>

#include "sluice/executor/device_copy.h"
#include "sluice/executor/device_prefetcher.h"
#include "sluice/ops/cuda_status.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

bool SaysBackendMissing(const Status& status) {
  return status.message().find("no CUDA backend is registered") != std::string::npos;
}

// The first test of this binary: nothing registered yet (ctest runs each
// test in a process of its own, and gtest runs them in order).
TEST(CudaBackendTest, BeforeRegisteringAGpuHasNoBackendAndNoKernels) {
  EXPECT_TRUE(SaysBackendMissing(ToDevice(Tensor::FromVector<float>({1}), kGpu).status()));
  EXPECT_EQ(OpRegistry::Global().Get("matmul").cuda_kernel, nullptr);
}

TEST(CudaBackendTest, RegisteringTwiceChangesNothing) {
  RegisterCudaBackend();
  const KernelFn matmul = OpRegistry::Global().Get("matmul").cuda_kernel;
  EXPECT_NE(matmul, nullptr);
  RegisterCudaBackend();
  EXPECT_EQ(OpRegistry::Global().Get("matmul").cuda_kernel, matmul);
}

TEST(CudaBackendTest, AfterRegisteringGpuCallsReachCuda) {
  RegisterCudaBackend();
  const Result<int> devices = CudaDeviceCount();
  auto copy = ToDevice(Tensor::FromVector<float>({1, 2}), kGpu);
  auto prefetcher = PrefetchToDevice([]() -> Result<std::optional<Element>> { return std::optional<Element>(); },
                                     {.device = kGpu, .depth = 2});
  if (devices.ok()) {
    ASSERT_TRUE(copy.ok()) << copy.status().ToString();
    EXPECT_EQ(copy->device(), kGpu);
    EXPECT_TRUE(prefetcher.ok()) << prefetcher.status().ToString();
  } else {
    // No GPU here: CUDA's own reason, not the missing backend.
    EXPECT_EQ(copy.status(), devices.status());
    EXPECT_EQ(prefetcher.status(), devices.status());
  }
  EXPECT_FALSE(SaysBackendMissing(copy.status()));
}

}  // namespace
}  // namespace sluice

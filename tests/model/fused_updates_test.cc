// The fused optimizer updates in a program without the CUDA backend (this
// test does not link sluice_cuda): a GPU tensor's update is an error that
// says how to get one. tests/model/cuda_optimizer_test.cc checks the
// kernels against the CPU updates.
#include "sluice/model/fused_updates.h"

#include <gtest/gtest.h>

#include "gpu_without_backend.h"

namespace sluice {
namespace {

using testing::ExpectCudaBackendMissing;
using testing::FakeGpuAllocator;

TEST(FusedUpdatesTest, WithoutTheCudaBackendAGpuUpdateIsAFailedPrecondition) {
  FakeGpuAllocator fake;
  Tensor w = Tensor::AllocateUninitialized(DType::kFloat32, Shape{2}, &fake);
  Tensor m = Tensor::AllocateUninitialized(DType::kFloat32, Shape{2}, &fake);
  Tensor v = Tensor::AllocateUninitialized(DType::kFloat32, Shape{2}, &fake);
  Tensor g = Tensor::AllocateUninitialized(DType::kFloat32, Shape{2}, &fake);
  ExpectCudaBackendMissing(SgdUpdateOnDevice(w, g, nullptr, {.learning_rate = 0.1}), "SGD update");
  ExpectCudaBackendMissing(AdamUpdateOnDevice(w, m, v, g, {.step_size = 0.1}), "Adam update");
  const Tensor gradients[] = {g};
  ExpectCudaBackendMissing(SumsOfSquaresOnDevice(gradients).status(), "gradient norm");
}

TEST(FusedUpdatesTest, NoTensorsHaveNoSums) {
  auto sums = SumsOfSquaresOnDevice({});
  ASSERT_TRUE(sums.ok());
  EXPECT_TRUE(sums->empty());
}

}  // namespace
}  // namespace sluice

// Parity of every op's CUDA kernel with its CPU kernel on the cases of
// cuda_parity_cases.h. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <set>

#include "cuda_test_util.h"
#include "sluice/tests/ops/cuda_parity_cases.h"

namespace sluice {
namespace {

using testing::Cases;
using testing::CompareOutputs;
using testing::ParityCase;
using testing::Random;
using testing::RunOn;

constexpr Device kGpu{DeviceType::kCuda, 0};

TEST(CudaKernelsTest, EveryOpWithACpuKernelHasACudaKernel) {
  RegisterCudaBackend();
  for (const OpDef* def : OpRegistry::Global().All()) {
    if (def->cpu_kernel != nullptr) {
      EXPECT_NE(def->cuda_kernel, nullptr) << def->name;
    }
  }
}

TEST(CudaKernelsTest, EveryOpIsCoveredByAParityCase) {
  RegisterCudaBackend();
  std::set<std::string> covered;
  for (const ParityCase& c : Cases()) covered.insert(c.op);
  for (const OpDef* def : OpRegistry::Global().All()) {
    if (def->cuda_kernel != nullptr) {
      EXPECT_TRUE(covered.contains(std::string(def->name))) << def->name;
    }
  }
}

TEST(CudaKernelsTest, MatchTheCpuKernels) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  for (const ParityCase& c : Cases()) {
    SCOPED_TRACE(c.label);
    auto cpu = RunOn(Device{}, c);
    ASSERT_TRUE(cpu.ok()) << cpu.status().ToString();
    auto gpu = RunOn(kGpu, c);
    ASSERT_TRUE(gpu.ok()) << gpu.status().ToString();
    ASSERT_EQ(cpu->size(), gpu->size());
    for (size_t i = 0; i < cpu->size(); ++i) {
      EXPECT_EQ(CompareOutputs((*cpu)[i], (*gpu)[i], c.tolerance), "") << c.label << ", output " << i;
    }
  }
}

TEST(CudaKernelsTest, OutOfRangeIndicesGiveTheCpuKernelsErrors) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<ParityCase> bad = {
      {"embedding id", "embedding_lookup", {Random({4, 3}), Tensor::FromVector<int32_t>({1, 2, 7, 0}, Shape{2, 2})}},
      {"label", "sparse_softmax_cross_entropy_with_logits",
       {Tensor::FromVector<int64_t>({0, 3, -1}), Random({3, 3})}},
  };
  for (const ParityCase& c : bad) {
    SCOPED_TRACE(c.label);
    auto cpu = RunOn(Device{}, c);
    auto gpu = RunOn(kGpu, c);
    ASSERT_FALSE(cpu.ok());
    ASSERT_FALSE(gpu.ok());
    EXPECT_EQ(gpu.status(), cpu.status()) << gpu.status().ToString();
  }
}

TEST(CudaKernelsTest, OutputsLiveOnTheInputsDevice) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  auto x = ToDevice(Random({8}), kGpu);
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  const Tensor inputs[] = {*x};
  auto y = RunSingleOutputOp(OpRegistry::Global().Get("relu"), inputs);
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->device(), kGpu);
}

}  // namespace
}  // namespace sluice

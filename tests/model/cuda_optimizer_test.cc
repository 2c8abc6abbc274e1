// Optimizer steps of variables on a GPU (fused kernels, model/fused_updates.h)
// against the same steps on the CPU: SGD, momentum, Nesterov, Adam, AdamW
// and global-norm clipping, float32 within 1e-5 (relative) and float64
// within 1e-12. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "cuda_test_util.h"
#include "sluice/executor/device_copy.h"
#include "sluice/model/adam.h"
#include "sluice/model/learning_rate_schedule.h"
#include "sluice/model/sgd.h"

namespace sluice {
namespace {

constexpr Device kGpu{DeviceType::kCuda, 0};

OptimizerOptions Options(std::optional<double> clip = std::nullopt) {
  return {.learning_rate = std::make_shared<ConstantLearningRate>(0.05), .clip_global_norm = clip};
}

template <typename T>
Tensor Random(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  std::vector<T> values(n);
  for (T& v : values) v = static_cast<T>(uniform(rng) + (uniform(rng) > 0 ? 0.1 : -0.1));
  return Tensor::FromVector(values);
}

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>()>;

// Three steps of `make()` on a host and a device copy of two variables.
template <typename T>
void ExpectSameSteps(const MakeOptimizer& make, double tolerance) {
  std::mt19937 rng(7);
  std::vector<Tensor> initial = {Random<T>(1000, rng), Random<T>(37, rng)};
  std::vector<Variable> host_vars, gpu_vars;
  for (size_t i = 0; i < initial.size(); ++i) {
    host_vars.emplace_back(StrCat("v", i), initial[i]);
    gpu_vars.emplace_back(StrCat("v", i), ToDevice(initial[i], kGpu).value());
  }
  std::vector<Variable*> host_ptrs = {&host_vars[0], &host_vars[1]};
  std::vector<Variable*> gpu_ptrs = {&gpu_vars[0], &gpu_vars[1]};
  auto host_optimizer = make();
  auto gpu_optimizer = make();
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> host_grads = {Random<T>(1000, rng), Random<T>(37, rng)};
    std::vector<Tensor> gpu_grads = {ToDevice(host_grads[0], kGpu).value(), ToDevice(host_grads[1], kGpu).value()};
    ASSERT_TRUE(host_optimizer->Apply(host_ptrs, host_grads).ok());
    const Status status = gpu_optimizer->Apply(gpu_ptrs, gpu_grads);
    ASSERT_TRUE(status.ok()) << status.ToString();
    EXPECT_NEAR(gpu_optimizer->last_global_norm(), host_optimizer->last_global_norm(),
                1e-9 * host_optimizer->last_global_norm());
  }
  for (size_t i = 0; i < host_vars.size(); ++i) {
    EXPECT_EQ(gpu_vars[i].value().device(), kGpu);
    const Tensor gpu = ToHost(gpu_vars[i].value()).value();
    const T* expected = host_vars[i].value().data<T>();
    for (int64_t j = 0; j < gpu.NumElements(); ++j) {
      ASSERT_NEAR(gpu.data<T>()[j], expected[j], tolerance * (1 + std::abs(expected[j]))) << "variable " << i << "[" << j << "]";
    }
  }
}

TEST(CudaOptimizerTest, FusedUpdatesMatchTheCpu) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  const std::vector<std::pair<std::string, MakeOptimizer>> optimizers = {
      {"sgd", [] { return std::make_unique<Sgd>(Options()); }},
      {"momentum", [] { return std::make_unique<Sgd>(Options(), SgdOptions{.momentum = 0.9}); }},
      {"nesterov", [] { return std::make_unique<Sgd>(Options(), SgdOptions{.momentum = 0.9, .nesterov = true}); }},
      {"adam", [] { return std::make_unique<Adam>(Options()); }},
      {"adamw", [] { return std::make_unique<Adam>(Options(), AdamOptions{.weight_decay = 0.01}); }},
      {"clipped sgd", [] { return std::make_unique<Sgd>(Options(/*clip=*/0.5)); }},
  };
  for (const auto& [label, make] : optimizers) {
    SCOPED_TRACE(label);
    ExpectSameSteps<float>(make, 1e-5);
    ExpectSameSteps<double>(make, 1e-12);
  }
}

TEST(CudaOptimizerTest, NonFiniteGradientsAreRejectedWithTheCpuMessage) {
  SLUICE_SKIP_WITHOUT_CUDA_DEVICE();
  Variable variable("w", ToDevice(Tensor::FromVector<float>({1, 2, 3}), kGpu).value());
  Variable* variables[] = {&variable};
  const Tensor gradients[] = {ToDevice(Tensor::FromVector<float>({0, NAN, 1}), kGpu).value()};
  Sgd sgd(Options());
  const Status status = sgd.Apply(variables, gradients);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("the gradient of 'w' holds NaN at index 1"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace sluice

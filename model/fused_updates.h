// Optimizer updates for variables on a GPU, each one fused kernel per
// variable per step that reads the gradient and updates the weights and
// slots in place, with the same arithmetic as the CPU loops in sgd.cc and
// adam.cc. The kernels (fused_updates.cu) are part of sluice_cuda, which
// the CPU libraries never link: these functions call the kernels that
// RegisterCudaBackend (model/cuda_backend.h) installed, and return
// FailedPrecondition where none are.
// REQUIRES (all): float32 or float64 tensors of one dtype and shape on one
// GPU. Thread safety: install before GPU work starts; the caller owns the
// tensors it updates.
#pragma once

#include <span>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

struct SgdStep {
  double learning_rate = 0;
  double momentum = 0;  // used only with a velocity slot
  bool nesterov = false;
};

// w -= lr g; with a velocity v: v = momentum v - lr g, then
// w += nesterov ? momentum v - lr g : v.
Status SgdUpdateOnDevice(Tensor& weights, const Tensor& gradient, Tensor* velocity, const SgdStep& step);

struct AdamStep {
  double step_size = 0;  // lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)
  double beta_1 = 0;
  double beta_2 = 0;
  double epsilon = 0;
  double decay = 0;  // lr * weight_decay (AdamW), 0 for none
};

Status AdamUpdateOnDevice(Tensor& weights, Tensor& m, Tensor& v, const Tensor& gradient, const AdamStep& step);

// The sum of squares of each tensor's values in double (NaN and Inf
// propagate), with one wait for the device for all of them: the global norm
// and finiteness check of an optimizer step.
Result<std::vector<double>> SumsOfSquaresOnDevice(std::span<const Tensor> tensors);

// The GPU implementations of the three functions above.
struct FusedUpdateKernels {
  Status (*sgd)(Tensor& weights, const Tensor& gradient, Tensor* velocity, const SgdStep& step) = nullptr;
  Status (*adam)(Tensor& weights, Tensor& m, Tensor& v, const Tensor& gradient, const AdamStep& step) = nullptr;
  Result<std::vector<double>> (*sums_of_squares)(std::span<const Tensor> tensors) = nullptr;
};

void InstallFusedUpdateKernels(const FusedUpdateKernels& kernels);

}  // namespace sluice

#include "sluice/model/cuda_fused_updates.h"

#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/device_backend.h"
#include "sluice/ops/op_checks.h"

namespace sluice {
namespace {

template <typename T>
__global__ void SgdKernel(T* w, const T* g, int64_t n, T lr) {
  SLUICE_CUDA_FOR_EACH(i, n) w[i] -= lr * g[i];
}

template <typename T>
__global__ void SgdMomentumKernel(T* w, T* v, const T* g, int64_t n, T lr, T momentum, bool nesterov) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    v[i] = momentum * v[i] - lr * g[i];
    w[i] += nesterov ? momentum * v[i] - lr * g[i] : v[i];
  }
}

template <typename T>
__global__ void AdamKernel(T* w, T* m, T* v, const T* g, int64_t n, T step_size, T b1, T b2, T eps, T decay) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    if (decay != T(0)) w[i] -= decay * w[i];
    m[i] = b1 * m[i] + (T(1) - b1) * g[i];
    v[i] = b2 * v[i] + (T(1) - b2) * g[i] * g[i];
    w[i] -= step_size * m[i] / (Sqrt(v[i]) + eps);
  }
}

// Adds the sum of squares of x (in double) to *sum: a block-wide sum per
// block, then one atomicAdd per block.
template <typename T>
__global__ void SumOfSquaresKernel(const T* x, int64_t n, double* sum) {
  double partial = 0;
  SLUICE_CUDA_FOR_EACH(i, n) partial += static_cast<double>(x[i]) * static_cast<double>(x[i]);
  partial = BlockReduce(partial, SumOf{}, 0.0);
  if (threadIdx.x == 0) atomicAdd(sum, partial);
}

Status SgdUpdate(Tensor& weights, const Tensor& gradient, Tensor* velocity, const SgdStep& step) {
  const int64_t n = gradient.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(weights));
  VisitFloating(gradient.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T lr = static_cast<T>(step.learning_rate);
    if (velocity == nullptr) {
      SgdKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(weights.mutable_data<T>(), gradient.data<T>(), n, lr);
    } else {
      SgdMomentumKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
          weights.mutable_data<T>(), velocity->mutable_data<T>(), gradient.data<T>(), n, lr,
          static_cast<T>(step.momentum), step.nesterov);
    }
  });
  return LaunchStatus("SgdKernel");
}

Status AdamUpdate(Tensor& weights, Tensor& m, Tensor& v, const Tensor& gradient, const AdamStep& step) {
  const int64_t n = gradient.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(weights));
  VisitFloating(gradient.dtype(), [&](auto zero) {
    using T = decltype(zero);
    AdamKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
        weights.mutable_data<T>(), m.mutable_data<T>(), v.mutable_data<T>(), gradient.data<T>(), n,
        static_cast<T>(step.step_size), static_cast<T>(step.beta_1), static_cast<T>(step.beta_2),
        static_cast<T>(step.epsilon), static_cast<T>(step.decay));
  });
  return LaunchStatus("AdamKernel");
}

Result<std::vector<double>> SumsOfSquares(std::span<const Tensor> tensors) {
  std::vector<double> sums(tensors.size(), 0.0);
  if (tensors.empty()) return sums;
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(tensors[0]));
  SLUICE_ASSIGN_OR_RETURN(Allocator * allocator, OutputAllocator(tensors[0].device()));
  Tensor device_sums =
      Tensor::AllocateUninitialized(DType::kFloat64, Shape{static_cast<int64_t>(tensors.size())}, allocator);
  double* out = device_sums.mutable_data<double>();
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(out, 0, sums.size() * sizeof(double), launch.stream));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const int64_t n = tensors[i].NumElements();
    if (n == 0) continue;
    VisitFloating(tensors[i].dtype(), [&](auto zero) {
      using T = decltype(zero);
      SumOfSquaresKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(tensors[i].data<T>(), n, out + i);
    });
    SLUICE_RETURN_IF_ERROR(LaunchStatus("SumOfSquaresKernel"));
  }
  SLUICE_RETURN_IF_ERROR(ReadDeviceValue(out, sums.data(), sums.size() * sizeof(double), launch.stream));
  return sums;
}

}  // namespace

FusedUpdateKernels CudaFusedUpdateKernels() {
  return {.sgd = SgdUpdate, .adam = AdamUpdate, .sums_of_squares = SumsOfSquares};
}

}  // namespace sluice

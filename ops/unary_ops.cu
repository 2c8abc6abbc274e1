// CUDA kernels of the elementwise functions and their backward ops
// (ops/unary_ops.cc), each the same formula as the CPU kernel.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

struct NegFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const { return -x; }
};
struct ReluFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const { return x > T(0) ? x : T(0); }
};
struct SigmoidFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const {
    if (x >= T(0)) return T(1) / (T(1) + Exp(-x));
    const T e = Exp(x);
    return e / (T(1) + e);
  }
};
struct TanhFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const { return Tanh(x); }
};
struct ExpFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const { return Exp(x); }
};
struct LogFn {
  static constexpr int kInputs = 1;
  template <typename T> __device__ T operator()(T x) const { return Log(x); }
};
// Backward functions of (g, y): the kernels' second input.
struct ReluGradFn {
  static constexpr int kInputs = 2;
  template <typename T> __device__ T operator()(T g, T y) const { return y > T(0) ? g : T(0); }
};
struct SigmoidGradFn {
  static constexpr int kInputs = 2;
  template <typename T> __device__ T operator()(T g, T y) const { return g * y * (T(1) - y); }
};
struct TanhGradFn {
  static constexpr int kInputs = 2;
  template <typename T> __device__ T operator()(T g, T y) const { return g * (T(1) - y * y); }
};

template <typename T, typename Fn>
__global__ void UnaryKernel(const T* x, T* out, int64_t n, Fn fn) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = fn(x[i]);
}

template <typename T, typename Fn>
__global__ void GradKernel(const T* g, const T* y, T* out, int64_t n, Fn fn) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = fn(g[i], y[i]);
}

template <typename Fn>
Status ElementwiseKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int64_t n = out.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  VisitFloating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if constexpr (Fn::kInputs == 1) {
      UnaryKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(inputs[0].data<T>(), out.mutable_data<T>(), n,
                                                                   Fn{});
    } else {
      GradKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(inputs[0].data<T>(), inputs[1].data<T>(),
                                                                  out.mutable_data<T>(), n, Fn{});
    }
  });
  return LaunchStatus("elementwise kernel");
}

}  // namespace

void RegisterUnaryCudaKernels(OpRegistry& registry) {
  registry.SetKernel("neg", DeviceType::kCuda, ElementwiseKernel<NegFn>);
  registry.SetKernel("relu", DeviceType::kCuda, ElementwiseKernel<ReluFn>);
  registry.SetKernel("sigmoid", DeviceType::kCuda, ElementwiseKernel<SigmoidFn>);
  registry.SetKernel("tanh", DeviceType::kCuda, ElementwiseKernel<TanhFn>);
  registry.SetKernel("exp", DeviceType::kCuda, ElementwiseKernel<ExpFn>);
  registry.SetKernel("log", DeviceType::kCuda, ElementwiseKernel<LogFn>);
  registry.SetKernel("relu_grad", DeviceType::kCuda, ElementwiseKernel<ReluGradFn>);
  registry.SetKernel("sigmoid_grad", DeviceType::kCuda, ElementwiseKernel<SigmoidGradFn>);
  registry.SetKernel("tanh_grad", DeviceType::kCuda, ElementwiseKernel<TanhGradFn>);
}

}  // namespace sluice

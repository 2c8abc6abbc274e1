// CUDA kernels of add, sub, mul and div (ops/binary_ops.cc): one thread per
// output element, same-shape operands read directly, broadcast ones through
// BroadcastIndex.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

struct AddFn {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct SubFn {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a - b; }
};
struct MulFn {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a * b; }
};
struct DivFn {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a / b; }
};

template <typename T, typename Fn>
__global__ void SameShapeKernel(const T* a, const T* b, T* out, int64_t n, Fn fn) {
  SLUICE_CUDA_FOR_EACH(i, n) out[i] = fn(a[i], b[i]);
}

template <typename T, typename Fn>
__global__ void BroadcastKernel(const T* a, const T* b, T* out, int64_t n, BroadcastIndex index, Fn fn) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    int64_t ia, ib;
    index.Offsets(i, ia, ib);
    out[i] = fn(a[ia], b[ib]);
  }
}

template <typename Fn>
Status BinaryKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& out = outputs[0];
  const int64_t n = out.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  VisitFloating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    if (a.shape() == b.shape()) {
      SameShapeKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(a.data<T>(), b.data<T>(),
                                                                       out.mutable_data<T>(), n, Fn{});
    } else {
      BroadcastKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
          a.data<T>(), b.data<T>(), out.mutable_data<T>(), n, MakeBroadcastIndex(out.shape(), a.shape(), b.shape()),
          Fn{});
    }
  });
  return LaunchStatus("binary op kernel");
}

}  // namespace

void RegisterBinaryCudaKernels(OpRegistry& registry) {
  registry.SetKernel("add", DeviceType::kCuda, BinaryKernel<AddFn>);
  registry.SetKernel("sub", DeviceType::kCuda, BinaryKernel<SubFn>);
  registry.SetKernel("mul", DeviceType::kCuda, BinaryKernel<MulFn>);
  registry.SetKernel("div", DeviceType::kCuda, BinaryKernel<DivFn>);
}

}  // namespace sluice

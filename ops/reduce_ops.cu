// CUDA kernels of sum, mean and broadcast_to (ops/reduce_ops.cc). A
// reduction sees the input as kept dims x reduced dims: with many outputs,
// one thread sums each (neighbouring threads read neighbouring elements
// when the kept dims are the inner ones, as for a bias gradient); with few,
// a block sums each with a block-wide reduction.
#include "sluice/ops/cuda_kernel_support.cuh"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"

namespace sluice {
namespace {

// Input offsets of an output element (kept dims) and of its count-th
// reduced element (reduced dims), both by decoding a flat index.
struct ReductionIndex {
  int kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
  int64_t count = 1;  // elements summed into each output

  __device__ static int64_t Offset(int64_t flat, int rank, const int64_t* dims, const int64_t* strides) {
    int64_t offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
      offset += (flat % dims[d]) * strides[d];
      flat /= dims[d];
    }
    return offset;
  }
  __device__ int64_t Base(int64_t output) const { return Offset(output, kept_rank, kept_dims, kept_strides); }
  __device__ int64_t Step(int64_t r) const { return Offset(r, reduced_rank, reduced_dims, reduced_strides); }
};

// The same axes rule as the CPU kernel: no axes reduces every dim.
ReductionIndex PlanReduction(const Shape& input, const OpAttrs& attrs) {
  bool reduced[kMaxRank] = {};
  const std::vector<int64_t>& axes = attrs.GetInts("axes");
  for (int d = 0; d < input.rank(); ++d) reduced[d] = axes.empty();
  for (int64_t axis : axes) reduced[axis < 0 ? axis + input.rank() : axis] = true;
  ReductionIndex index;
  int64_t stride = 1;
  int64_t strides[kMaxRank] = {};
  for (int d = input.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= input.dim(d);
  }
  for (int d = 0; d < input.rank(); ++d) {
    if (reduced[d]) {
      index.reduced_dims[index.reduced_rank] = input.dim(d);
      index.reduced_strides[index.reduced_rank++] = strides[d];
      index.count *= input.dim(d);
    } else {
      index.kept_dims[index.kept_rank] = input.dim(d);
      index.kept_strides[index.kept_rank++] = strides[d];
    }
  }
  return index;
}

template <typename T>
__global__ void ThreadPerOutputKernel(const T* in, T* out, int64_t outputs, ReductionIndex index, T scale) {
  SLUICE_CUDA_FOR_EACH(o, outputs) {
    const int64_t base = index.Base(o);
    T sum = 0;
    for (int64_t r = 0; r < index.count; ++r) sum += in[base + index.Step(r)];
    out[o] = sum * scale;
  }
}

template <typename T>
__global__ void BlockPerOutputKernel(const T* in, T* out, ReductionIndex index, T scale) {
  const int64_t base = index.Base(blockIdx.x);
  T sum = 0;
  for (int64_t r = threadIdx.x; r < index.count; r += blockDim.x) sum += in[base + index.Step(r)];
  sum = BlockReduce(sum, SumOf{}, T(0));
  if (threadIdx.x == 0) out[blockIdx.x] = sum * scale;
}

// Below this many outputs a block per output keeps the GPU busier.
constexpr int64_t kBlockPerOutputBelow = 2048;

template <bool kMean>
Status Reduce(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  const int64_t n = out.NumElements();
  if (n == 0) return OkStatus();
  const ReductionIndex index = PlanReduction(x.shape(), attrs);
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  VisitFloating(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    // The CPU kernel sums, then scales by 1 / count for a mean.
    const T scale = kMean && index.count > 0 ? T(1) / static_cast<T>(index.count) : T(1);
    if (n < kBlockPerOutputBelow) {
      BlockPerOutputKernel<<<static_cast<unsigned>(n), kCudaThreads, 0, launch.stream>>>(
          x.data<T>(), out.mutable_data<T>(), index, scale);
    } else {
      ThreadPerOutputKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(x.data<T>(), out.mutable_data<T>(), n,
                                                                             index, scale);
    }
  });
  return LaunchStatus("reduction kernel");
}

template <typename T>
__global__ void BroadcastToKernel(const T* in, T* out, int64_t n, BroadcastIndex index) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    int64_t offset, unused;
    index.Offsets(i, offset, unused);
    out[i] = in[offset];
  }
}

Status BroadcastTo(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int64_t n = out.NumElements();
  if (n == 0) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(CudaLaunch launch, BeginLaunch(out));
  VisitFloating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    BroadcastToKernel<<<GridFor(n), kCudaThreads, 0, launch.stream>>>(
        inputs[0].data<T>(), out.mutable_data<T>(), n, MakeBroadcastIndex(out.shape(), inputs[0].shape(), out.shape()));
  });
  return LaunchStatus("BroadcastToKernel");
}

}  // namespace

void RegisterReduceCudaKernels(OpRegistry& registry) {
  registry.SetKernel("sum", DeviceType::kCuda, Reduce<false>);
  registry.SetKernel("mean", DeviceType::kCuda, Reduce<true>);
  registry.SetKernel("broadcast_to", DeviceType::kCuda, BroadcastTo);
}

}  // namespace sluice

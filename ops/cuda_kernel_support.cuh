// What every CUDA kernel file in ops/ shares: where a kernel launches (its
// tensors' device and that device's compute stream), grid sizing for
// grid-stride loops, block-wide reductions for row kernels, and the
// registration hooks each ops/x.cu defines (called by RegisterCudaKernels).
// Thread safety: BeginLaunch is safe from any thread; it makes the tensors'
// device current for the calling thread.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "sluice/core/tensor.h"
#include "sluice/ops/cuda_status.h"

namespace sluice {

class OpRegistry;

// The device and stream one kernel call runs on.
struct CudaLaunch {
  int device = 0;
  cudaStream_t stream = nullptr;
};

// Makes `on_device`'s GPU current and returns its compute stream
// (ops/device_backend.h).
Result<CudaLaunch> BeginLaunch(const Tensor& on_device);

// The launch error of the kernel just launched, if any (faults inside a
// kernel surface at the next synchronising call).
Status LaunchStatus(const char* kernel);

inline constexpr int kCudaThreads = 256;

// Blocks for a grid-stride loop over n elements: enough to fill an H200
// (132 SMs) several times over, never more than the work needs.
inline unsigned GridFor(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + kCudaThreads - 1) / kCudaThreads, 1, 132 * 32));
}

// An index outside [0, limit) of an int32/int64 index tensor on the device:
// the first such position and its value, or nullopt when all are in range.
// Waits for the stream (a shape function cannot see values; the CPU kernels
// check the same and return the same errors).
struct BadIndex {
  int64_t position;
  int64_t value;
};
Result<std::optional<BadIndex>> FindIndexOutOfRange(const Tensor& indices, int64_t limit, cudaStream_t stream);

// Copies a small device value (an error flag) of `count` bytes to host
// memory `dst`, waiting for `stream`: for checks a shape function can't do.
Status ReadDeviceValue(const void* src, void* dst, size_t count, cudaStream_t stream);

#define SLUICE_CUDA_FOR_EACH(i, n)                                                       \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

struct SumOf {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOf {
  template <typename T>
  __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

// Reduces one value per thread over the whole block (blockDim.x a multiple
// of 32, at most 1024); every thread gets the result. Ends with a barrier,
// so calls may follow one another.
template <typename T, typename Op>
__device__ T BlockReduce(T value, Op op, T identity) {
  __shared__ T partial[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
  if (lane == 0) partial[warp] = value;
  __syncthreads();
  if (warp == 0) {
    value = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : identity;
    for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_down_sync(0xffffffffu, value, offset));
    if (lane == 0) partial[0] = value;
  }
  __syncthreads();
  const T result = partial[0];
  __syncthreads();
  return result;
}

// Threads for a kernel that gives each row a block: a warp for short rows,
// up to 1024 for long ones (a multiple of 32, as BlockReduce needs).
inline unsigned RowBlockThreads(int64_t n) {
  return static_cast<unsigned>(std::clamp<int64_t>((n + 31) / 32 * 32, 32, 1024));
}

// max(x) and sum(exp(x - max)) of one row of n > 0 values, computed by the
// whole block; every thread gets them (softmax and cross-entropy kernels).
template <typename T>
struct RowStats {
  T max;
  T sum;
};

// Reads an int32 or int64 index on the device.
__device__ inline int64_t LoadIndex(const void* indices, bool is_int32, int64_t i) {
  return is_int32 ? static_cast<const int32_t*>(indices)[i] : static_cast<const int64_t*>(indices)[i];
}

// Maps an output element's flat index to its two operands' element offsets
// under broadcasting (ops/broadcast.h): per output dim, the operands'
// strides (0 where broadcast).
struct BroadcastIndex {
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t a_strides[kMaxRank] = {};
  int64_t b_strides[kMaxRank] = {};

  __device__ void Offsets(int64_t out, int64_t& a, int64_t& b) const {
    a = 0;
    b = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t i = out % dims[d];
      out /= dims[d];
      a += i * a_strides[d];
      b += i * b_strides[d];
    }
  }
};

// Operands of shapes `a` and `b` (b may be empty: a single operand) read
// through an output of shape `out`.
BroadcastIndex MakeBroadcastIndex(const Shape& out, const Shape& a, const Shape& b);

// Math overloads that pick the float or double device function.
__device__ inline float Exp(float x) { return expf(x); }
__device__ inline double Exp(double x) { return exp(x); }
__device__ inline float Log(float x) { return logf(x); }
__device__ inline double Log(double x) { return log(x); }
__device__ inline float Log1p(float x) { return log1pf(x); }
__device__ inline double Log1p(double x) { return log1p(x); }
__device__ inline float Tanh(float x) { return tanhf(x); }
__device__ inline double Tanh(double x) { return tanh(x); }
__device__ inline float Sqrt(float x) { return sqrtf(x); }
__device__ inline double Sqrt(double x) { return sqrt(x); }
__device__ inline float Abs(float x) { return fabsf(x); }
__device__ inline double Abs(double x) { return fabs(x); }

template <typename T>
__device__ RowStats<T> ComputeRowStats(const T* x, int64_t n) {
  T max = x[0];
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) max = x[i] > max ? x[i] : max;
  max = BlockReduce(max, MaxOf{}, x[0]);
  T sum = 0;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) sum += Exp(x[i] - max);
  return {max, BlockReduce(sum, SumOf{}, T(0))};
}

// Each ops/x.cu installs its kernels with OpRegistry::SetKernel.
void RegisterBiasAddCudaKernels(OpRegistry& registry);
void RegisterBinaryCudaKernels(OpRegistry& registry);
void RegisterCastCudaKernels(OpRegistry& registry);
void RegisterConcatCudaKernels(OpRegistry& registry);
void RegisterCrossEntropyCudaKernels(OpRegistry& registry);
void RegisterDropoutCudaKernels(OpRegistry& registry);
void RegisterEmbeddingLookupCudaKernels(OpRegistry& registry);
void RegisterFillCudaKernels(OpRegistry& registry);
void RegisterMaskedMeanCudaKernels(OpRegistry& registry);
void RegisterMatMulCudaKernels(OpRegistry& registry);
void RegisterReduceCudaKernels(OpRegistry& registry);
void RegisterReshapeCudaKernels(OpRegistry& registry);
void RegisterSoftmaxCudaKernels(OpRegistry& registry);
void RegisterUnaryCudaKernels(OpRegistry& registry);

}  // namespace sluice

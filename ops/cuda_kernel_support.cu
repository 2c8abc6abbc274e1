#include "sluice/ops/cuda_kernel_support.cuh"

#include "sluice/ops/broadcast.h"
#include "sluice/ops/device_backend.h"

namespace sluice {
namespace {

__global__ void FirstBadIndexKernel(const void* indices, bool is_int32, int64_t n, int64_t limit,
                                    unsigned long long* first) {
  SLUICE_CUDA_FOR_EACH(i, n) {
    const int64_t value = LoadIndex(indices, is_int32, i);
    if (value < 0 || value >= limit) atomicMin(first, static_cast<unsigned long long>(i));
  }
}

}  // namespace

Result<CudaLaunch> BeginLaunch(const Tensor& on_device) {
  const int device = on_device.device().index;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(device));
  SLUICE_ASSIGN_OR_RETURN(CudaStream stream, ComputeStream(device));
  return CudaLaunch{device, stream};
}

BroadcastIndex MakeBroadcastIndex(const Shape& out, const Shape& a, const Shape& b) {
  BroadcastIndex index;
  index.rank = out.rank();
  const auto a_strides = BroadcastStrides(a, out);
  const auto b_strides = BroadcastStrides(b, out);
  for (int d = 0; d < out.rank(); ++d) {
    index.dims[d] = out.dim(d);
    index.a_strides[d] = a_strides[d];
    index.b_strides[d] = b_strides[d];
  }
  return index;
}

Status LaunchStatus(const char* kernel) { return CudaStatus(cudaGetLastError(), kernel); }

Status ReadDeviceValue(const void* src, void* dst, size_t count, cudaStream_t stream) {
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(dst, src, count, cudaMemcpyDeviceToHost, stream));
  SLUICE_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream));
  return OkStatus();
}

}  // namespace sluice

namespace sluice {

Result<std::optional<BadIndex>> FindIndexOutOfRange(const Tensor& indices, int64_t limit, cudaStream_t stream) {
  const int64_t n = indices.NumElements();
  if (n == 0) return std::optional<BadIndex>();
  SLUICE_ASSIGN_OR_RETURN(Allocator * allocator, OutputAllocator(indices.device()));
  Tensor first = Tensor::AllocateUninitialized(DType::kInt64, Shape{}, allocator);
  auto* first_data = reinterpret_cast<unsigned long long*>(first.mutable_data<int64_t>());
  SLUICE_CUDA_RETURN_IF_ERROR(cudaMemsetAsync(first_data, 0xff, sizeof(*first_data), stream));
  const bool is_int32 = indices.dtype() == DType::kInt32;
  FirstBadIndexKernel<<<GridFor(n), kCudaThreads, 0, stream>>>(indices.raw_data(), is_int32, n, limit, first_data);
  SLUICE_RETURN_IF_ERROR(LaunchStatus("FirstBadIndexKernel"));
  unsigned long long position = 0;
  SLUICE_RETURN_IF_ERROR(ReadDeviceValue(first_data, &position, sizeof(position), stream));
  if (position == ~0ull) return std::optional<BadIndex>();
  BadIndex bad{static_cast<int64_t>(position), 0};
  const size_t size = DTypeSize(indices.dtype());
  if (is_int32) {
    int32_t value = 0;
    SLUICE_RETURN_IF_ERROR(
        ReadDeviceValue(static_cast<const char*>(indices.raw_data()) + position * size, &value, size, stream));
    bad.value = value;
  } else {
    SLUICE_RETURN_IF_ERROR(
        ReadDeviceValue(static_cast<const char*>(indices.raw_data()) + position * size, &bad.value, size, stream));
  }
  return std::optional<BadIndex>(bad);
}

}  // namespace sluice

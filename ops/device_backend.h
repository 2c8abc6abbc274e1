// DeviceBackend: what RunOp and the CUDA kernels need from the device layer
// above them (executor/device_context.h installs it): the allocator that an
// op's outputs on a GPU come from, the stream that kernels for that GPU
// launch on, and a copy of host bytes to the GPU for the small constants
// that gradient rules make. This keeps ops/ free of executor/ while every
// kernel still runs on its device context's compute stream.
// Thread safety: install once, before ops run on the device; lookups are
// safe from any thread.
#pragma once

#include "sluice/core/tensor.h"

struct CUstream_st;  // cudaStream_t is CUstream_st*; no CUDA header needed here

namespace sluice {

using CudaStream = CUstream_st*;

struct DeviceBackend {
  Allocator* (*allocator)(int device_index) = nullptr;
  CudaStream (*compute_stream)(int device_index) = nullptr;
  // Copies `bytes` of pageable host memory to the device, ordered on the
  // compute stream; the host bytes may be freed when it returns.
  Status (*upload)(const void* host, void* device, size_t bytes, int device_index) = nullptr;
};

// Installs the backend for GPUs (the only non-host device type).
void InstallCudaBackend(DeviceBackend backend);

// FailedPrecondition for `what` (an operation, "ToDevice") on `device` in a
// program without Sluice's CUDA backend: the CPU libraries never link CUDA;
// a GPU program links sluice_cuda (built where nvcc exists) and calls
// RegisterCudaBackend (model/cuda_backend.h) once.
Status CudaBackendMissing(std::string_view what, Device device);

// The allocator for outputs on `device`: CpuAllocator() for the host, the
// installed backend's for a GPU, or FailedPrecondition when none is.
Result<Allocator*> OutputAllocator(Device device);

// `host_constant` on `like`'s device: itself for the host, else a copy
// (a gradient rule's scalar, multiplied with values on a GPU).
Result<Tensor> ConstantLike(const Tensor& host_constant, const Tensor& like);

// The compute stream of GPU `device_index`, or FailedPrecondition when no
// backend is installed.
Result<CudaStream> ComputeStream(int device_index);

}  // namespace sluice

#include "sluice/executor/cuda_allocator.h"

#include "sluice/ops/cuda_status.h"

namespace sluice {
namespace {

// The call's error as text, or empty on success.
std::string ErrorText(cudaError_t error, std::string_view call) {
  if (error == cudaSuccess) return {};
  (void)cudaGetLastError();  // not sticky: later calls report their own errors
  return CudaStatus(error, call).ToString();
}

}  // namespace

CudaAllocator::CudaAllocator(int device_index)
    : device_index_(device_index), name_("cuda:" + std::to_string(device_index)) {}

void* CudaAllocator::AllocateBlock(size_t bytes, std::string* error) {
  *error = ErrorText(cudaSetDevice(device_index_), "cudaSetDevice(device_index_)");
  if (!error->empty()) return nullptr;
  void* block = nullptr;
  *error = ErrorText(cudaMalloc(&block, bytes), "cudaMalloc(&block, bytes)");
  return error->empty() ? block : nullptr;
}

void CudaAllocator::FreeBlock(void* block) {
  (void)cudaSetDevice(device_index_);
  (void)cudaFree(block);
}

void* PinnedHostAllocator::AllocateBlock(size_t bytes, std::string* error) {
  void* block = nullptr;
  *error = ErrorText(cudaHostAlloc(&block, bytes, cudaHostAllocPortable),
                     "cudaHostAlloc(&block, bytes, cudaHostAllocPortable)");
  return error->empty() ? block : nullptr;
}

void PinnedHostAllocator::FreeBlock(void* block) { (void)cudaFreeHost(block); }

PinnedHostAllocator* PinnedAllocator() {
  static auto* allocator = new PinnedHostAllocator;
  return allocator;
}

}  // namespace sluice

// DeviceContext: everything the executor keeps per GPU: a compute stream
// (every op's kernels, in order), a copy stream (host-to-device input copies
// that overlap compute), an event pool to order the two, and the caching
// device allocator. The first Get() also installs the CUDA backend for ops
// (ops/device_backend.h), so RunOp allocates outputs here and launches on
// the compute stream.
// Thread safety: Get is safe from any thread; a context lives until the
// process exits.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "sluice/core/status.h"
#include "sluice/executor/cuda_allocator.h"
#include "sluice/executor/event_pool.h"

namespace sluice {

class DeviceContext {
 public:
  // The context of GPU `index`, made on first use; an error when there is
  // no such usable device (the reason in CUDA's words).
  static Result<DeviceContext*> Get(int index);

  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  int index() const { return index_; }
  cudaStream_t compute_stream() const { return compute_stream_; }
  cudaStream_t copy_stream() const { return copy_stream_; }
  CudaAllocator& allocator() { return allocator_; }
  EventPool& events() { return events_; }

  // Waits until all work queued on both streams is done.
  Status Synchronize();

 private:
  explicit DeviceContext(int index) : index_(index), allocator_(index), events_(index) {}
  Status Init();

  const int index_;
  cudaStream_t compute_stream_ = nullptr;
  cudaStream_t copy_stream_ = nullptr;
  CudaAllocator allocator_;
  EventPool events_;
};

}  // namespace sluice

// EventPool: reusable CUDA events (timing disabled, the cheap kind) for
// ordering work between a device's streams: record on one stream, make
// another wait on it. Events come back to the pool instead of being
// destroyed, so a training step creates none.
// Thread safety: Acquire and Release are safe from any thread.
#pragma once

#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "sluice/core/status.h"

namespace sluice {

class EventPool {
 public:
  explicit EventPool(int device_index) : device_index_(device_index) {}
  ~EventPool();
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // A free event of this pool's device (made if none is free).
  Result<cudaEvent_t> Acquire();
  // REQUIRES: from Acquire; no stream still waits to record it.
  void Release(cudaEvent_t event);

 private:
  const int device_index_;
  std::mutex mu_;
  std::vector<cudaEvent_t> free_;  // GUARDED_BY(mu_)
};

}  // namespace sluice

#include "sluice/executor/event_pool.h"

#include "sluice/ops/cuda_status.h"

namespace sluice {

EventPool::~EventPool() {
  for (cudaEvent_t event : free_) (void)cudaEventDestroy(event);
}

Result<cudaEvent_t> EventPool::Acquire() {
  {
    std::lock_guard lock(mu_);
    if (!free_.empty()) {
      cudaEvent_t event = free_.back();
      free_.pop_back();
      return event;
    }
  }
  SLUICE_CUDA_RETURN_IF_ERROR(cudaSetDevice(device_index_));
  cudaEvent_t event = nullptr;
  SLUICE_CUDA_RETURN_IF_ERROR(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return event;
}

void EventPool::Release(cudaEvent_t event) {
  std::lock_guard lock(mu_);
  free_.push_back(event);
}

}  // namespace sluice

#include "sluice/dataset/cancellation.h"

namespace sluice {

void Cancellation::Cancel() {
  std::lock_guard<std::mutex> lock(mu_);
  cancelled_.store(true, std::memory_order_release);
  for (auto& [handle, wake] : wakers_) wake();
}

int Cancellation::Register(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled()) wake();
  wakers_.emplace(next_handle_, std::move(wake));
  return next_handle_++;
}

void Cancellation::Deregister(int handle) {
  std::lock_guard<std::mutex> lock(mu_);
  wakers_.erase(handle);
}

}  // namespace sluice

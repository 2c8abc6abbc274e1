// Cancellation: a flag shared by every iterator of one traversal, set when
// the traversal's root iterator is destroyed. Code that blocks (a prefetch
// consumer or producer waiting on a condition variable) registers a callback
// that wakes it, so destruction returns promptly even mid-stream.
// Thread safety: all methods are thread-safe. Callbacks run on the thread
// that calls Cancel() and must not block.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <mutex>

namespace sluice {

class Cancellation {
 public:
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  void Cancel();
  // Returns a handle for Deregister; runs `wake` at once if already cancelled.
  int Register(std::function<void()> wake);
  void Deregister(int handle);

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  int next_handle_ = 0;                          // guarded by mu_
  std::map<int, std::function<void()>> wakers_;  // guarded by mu_
};

}  // namespace sluice

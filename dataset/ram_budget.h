// RamBudget: the hard limit on the bytes that one traversal's buffers hold:
// prefetch buffers, parallel map and interleave results, shuffle buffers
// and caches. Buffering ops Add() the bytes of each element they keep and
// Release() them when it leaves; a producer about to make one more element
// first Reserves its estimated size, which throttles it until that fits,
// and corrects the charge (Adjust) once the element exists. Reservations are
// atomic, so producers racing for the last room can't both get it.
//
// Elements are counted by Element::NumBytes (tensor payloads, not the few
// dozen bytes of bookkeeping around them). A producer whose own buffer is
// empty while its consumer waits on it is never held back, so a pipeline
// can't deadlock on its budget (a shuffle, say, holds memory it releases
// only after more input): then use can exceed the budget by an element, and
// the peak says so.
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace sluice {

class RamBudget {
 public:
  // REQUIRES: limit_bytes > 0.
  explicit RamBudget(int64_t limit_bytes) : limit_(limit_bytes) {}

  int64_t limit() const { return limit_; }
  int64_t used() const { return used_.load(std::memory_order_relaxed); }
  int64_t peak() const { return peak_.load(std::memory_order_relaxed); }
  // How many times a producer had to wait for room.
  int64_t throttles() const { return throttles_.load(std::memory_order_relaxed); }

  // Adds `bytes` once they fit in the budget, or at once when `proceed()`
  // returns true (polled): the caller's consumer waits on it with nothing
  // buffered (so the pipeline always makes progress), or it must stop.
  void Reserve(int64_t bytes, const std::function<bool()>& proceed);
  bool Fits(int64_t bytes) const { return used() + bytes <= limit_; }

  void Add(int64_t bytes);
  // Wakes the producers waiting for room.
  void Release(int64_t bytes);
  // Add or Release by the sign of `delta` (a charge corrected to the truth).
  void Adjust(int64_t delta) { delta >= 0 ? Add(delta) : Release(-delta); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> throttles_{0};
  // Adds `bytes` if they fit; false otherwise.
  bool TryAdd(int64_t bytes);
  void RaisePeak(int64_t now);

  std::atomic<int64_t> waiting_{0};  // producers in Reserve
  std::mutex mu_;
  std::condition_variable room_;  // signalled by Release while someone waits
};

// Half of the memory the system reports available (MemAvailable).
int64_t DefaultRamBudget();

}  // namespace sluice

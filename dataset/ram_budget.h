// RamBudget: the hard limit on the bytes that one traversal's buffers hold:
// prefetch buffers, parallel map and interleave results, shuffle buffers
// and caches. Buffering ops Add() the bytes of each element they keep and
// Release() them when it leaves; a producer about to make one more element
// first calls WaitForRoom, which throttles it until the element fits.
// An element being made is charged at its estimated size until it exists.
//
// Elements are counted by Element::NumBytes (tensor payloads, not the few
// dozen bytes of bookkeeping around them). A producer whose own buffer is
// empty is never held back, so a pipeline can't deadlock on its budget: with
// a budget below one element per buffering op, use can exceed the budget by
// those elements, and the peak says so.
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

  // Blocks until `bytes` more fit in the budget or `proceed()` returns true
  // (polled): the caller holds nothing in its own buffer (so it can always
  // make progress), or it must stop.
  void WaitForRoom(int64_t bytes, const std::function<bool()>& proceed);
  // Whether `bytes` more fit now (for ops that can't wait: a shuffle buffer).
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
  std::atomic<int64_t> waiting_{0};  // producers in WaitForRoom
  std::mutex mu_;
  std::condition_variable room_;  // signalled by Release while someone waits
};

// Half of the memory the system reports available (MemAvailable).
int64_t DefaultRamBudget();

}  // namespace sluice

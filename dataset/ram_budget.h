// RamBudget: the hard limit on the bytes that one traversal's buffers hold:
// prefetch buffers, parallel map and interleave results, shuffle buffers
// and caches. Buffering ops charge the bytes of each element they keep and
// Release() them when it leaves. Async producers (prefetch, parallel map and
// batch, interleave) throttle: they Reserve room before keeping an element,
// which waits until it fits, and never take more than the limit.
//
// Progress without overshoot: a producer whose consumer waits on it with
// nothing buffered is never held back (the budget may be full of elements
// that are released only after more input, as a shuffle's are), but it
// doesn't charge what it hands over then: Reserve returns false, and the
// element goes straight to the waiting consumer, as it would through a
// sequential op. So, like the element a consumer holds and the one a
// producer is making, such an element is working memory, not a buffer.
// Reservations are made before an element exists, at its estimated size;
// Settle corrects one to the element's true size where that fits, and
// otherwise leaves it at the reservation (a size learnt too late: the first
// element of a stage, or one larger than the ones before it).
// Ops whose buffer size the user fixed and that can't wait for room (a
// shuffle buffer needs its input's elements before it releases any) charge
// with Add, which may pass the limit; peak() shows it.
//
// Elements are counted by Element::NumBytes (tensor payloads, not the few
// dozen bytes of bookkeeping around them).
// Thread safety: all methods may be called concurrently.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

#include "sluice/core/element.h"

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

  // Adds `bytes` once they fit and returns true; or returns false without
  // adding anything as soon as `proceed()` (polled) returns true: the
  // caller's consumer waits on it with nothing buffered (the element then
  // goes to it uncharged), or the caller must stop.
  bool Reserve(int64_t bytes, const std::function<bool()>& proceed);
  // Adds `bytes` if they fit; false otherwise.
  bool TryAdd(int64_t bytes);
  bool Fits(int64_t bytes) const { return used() + bytes <= limit_; }
  // A charge of `charged` bytes for an element of `bytes` bytes: releases
  // the excess, or adds the rest if it fits, and returns the new charge
  // (`bytes`, or `charged` when the rest doesn't fit).
  int64_t Settle(int64_t charged, int64_t bytes);

  // Adds `bytes` even past the limit: only for charges that can't wait.
  void Add(int64_t bytes);
  // Wakes the producers waiting for room.
  void Release(int64_t bytes);
  // Add or Release by the sign of `delta`.
  void Adjust(int64_t delta) { delta >= 0 ? Add(delta) : Release(-delta); }

 private:
  const int64_t limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> throttles_{0};
  void RaisePeak(int64_t now);

  std::atomic<int64_t> waiting_{0};  // producers in Reserve
  std::mutex mu_;
  std::condition_variable room_;  // signalled by Release while someone waits
};

// Half of the memory the system reports available (MemAvailable).
int64_t DefaultRamBudget();

// What an element kept in a buffer for a long time (shuffle's, cache's)
// takes: its tensors' bytes and, per tensor, the buffer it was copied into
// (Unpinned) with its bookkeeping, so that many small elements are charged
// what they hold.
int64_t HeldBytes(const Element& element);

// A reader's charge (tfrecord/record_reader.h RecordReaderOptions::charge)
// against `budget`: releases -bytes, or adds bytes if they fit and is
// ResourceExhausted saying what is free if they don't.
Status ChargeRecordBytes(RamBudget& budget, int64_t bytes);

}  // namespace sluice

// AsyncSignal: a condition variable for coroutines on one io thread. A
// coroutine waits (with a deadline) for another to call NotifyAll, then
// checks its condition again; nothing is remembered between notifications.
// Each waiter holds its own timer set to its deadline; NotifyAll cancels
// them all.
// Thread safety: io-thread only (not thread-safe).
#pragma once

#include <utility>  // before Asio

#include <boost/asio/awaitable.hpp>

#include <list>

#include <boost/asio/steady_timer.hpp>

#include "sluice/service/io_thread.h"

namespace sluice::service {

class AsyncSignal {
 public:
  // Waits for NotifyAll or the deadline: true when notified (or when the
  // wait was cut short otherwise), false at the deadline.
  asio::awaitable<bool> Wait(Clock::time_point deadline);
  void NotifyAll();
  size_t waiters() const { return waiters_.size(); }

 private:
  std::list<asio::steady_timer*> waiters_;
};

}  // namespace sluice::service

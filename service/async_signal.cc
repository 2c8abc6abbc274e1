#include "sluice/service/async_signal.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace sluice::service {

asio::awaitable<bool> AsyncSignal::Wait(Clock::time_point deadline) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  timer.expires_at(deadline);
  auto self = waiters_.insert(waiters_.end(), &timer);
  boost::system::error_code error;
  co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, error));
  waiters_.erase(self);
  co_return error == asio::error::operation_aborted || Clock::now() < deadline;
}

void AsyncSignal::NotifyAll() {
  for (asio::steady_timer* timer : waiters_) timer->cancel();
}

}  // namespace sluice::service

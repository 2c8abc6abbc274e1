// IoThread: a Boost.Asio io_context and the one thread that runs it. Every
// connection, server and timer of one service role (or of one client) lives
// on one IoThread, so their state needs no locks: coroutines on it run one
// at a time. Threads that are not the io thread (a trainer's GetNext) reach
// it through RunBlocking, which waits for a coroutine's result with a
// deadline.
// Thread safety: context() and RunBlocking from any thread; Stop from any
// thread but the io thread.
#pragma once

#include <utility>  // before Asio: Boost 1.74's coroutine support needs it

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "sluice/core/status.h"

namespace sluice::service {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// A timeout that never passes.
inline constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::max();

// The deadline `timeout` from now; the end of time when that lies past it
// (kNoTimeout).
inline Clock::time_point DeadlineAfter(std::chrono::milliseconds timeout) {
  const Clock::time_point now = Clock::now();
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::time_point::max() - now);
  return timeout >= left ? Clock::time_point::max() : now + timeout;
}

class IoThread {
 public:
  // Starts the thread (named `name` in debuggers, at most 15 characters used).
  explicit IoThread(std::string name = "sluice-io");
  // Stop().
  ~IoThread();
  IoThread(const IoThread&) = delete;
  IoThread& operator=(const IoThread&) = delete;

  asio::io_context& context() { return context_; }
  asio::io_context::executor_type executor() { return context_.get_executor(); }
  bool InIoThread() const { return std::this_thread::get_id() == thread_.get_id(); }

  // Fails every RunBlocking caller still waiting with Cancelled, stops the
  // context and joins the thread; coroutines not finished are destroyed with
  // the context. Owners close their connections and servers first, so that
  // their coroutines end cleanly. Idempotent. REQUIRES: !InIoThread().
  void Stop();

  // Runs the coroutine `make()` returns on the io thread and waits for its
  // result at most `timeout`: DeadlineExceeded past it (the coroutine keeps
  // running until its own deadlines end it), Cancelled when Stop comes
  // first. `make` and what it captures must own their data.
  // REQUIRES: !InIoThread().
  template <typename T>
  Result<T> RunBlocking(std::function<asio::awaitable<Result<T>>()> make, std::chrono::milliseconds timeout);
  Status RunBlocking(std::function<asio::awaitable<Status>()> make, std::chrono::milliseconds timeout);

  // Registers `callback` to run (on the thread calling Stop) when the io
  // thread stops, for objects whose other threads' waits do not go through
  // RunBlocking; its id for RemoveOnStop. Called at once when already
  // stopped.
  uint64_t OnStop(std::function<void()> callback);
  void RemoveOnStop(uint64_t id);

 private:
  // A blocking caller's wait: filled by the coroutine or by Stop.
  struct Call {
    std::mutex mu;
    std::condition_variable done;
    std::optional<Status> status;  // set once
    void Finish(Status s);
  };
  std::shared_ptr<Call> Register();
  void Unregister(const std::shared_ptr<Call>& call);
  Status Await(const std::shared_ptr<Call>& call, std::chrono::milliseconds timeout);

  asio::io_context context_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::mutex calls_mu_;
  std::list<std::shared_ptr<Call>> calls_;  // GUARDED_BY(calls_mu_)
  bool stopped_ = false;                    // GUARDED_BY(calls_mu_)
  std::list<std::pair<uint64_t, std::function<void()>>> stop_callbacks_;  // GUARDED_BY(calls_mu_)
  uint64_t next_stop_callback_ = 1;         // GUARDED_BY(calls_mu_)
  std::thread thread_;
};

template <typename T>
Result<T> IoThread::RunBlocking(std::function<asio::awaitable<Result<T>>()> make,
                                std::chrono::milliseconds timeout) {
  auto value = std::make_shared<std::optional<Result<T>>>();
  Status status = RunBlocking(
      [make = std::move(make), value]() -> asio::awaitable<Status> {
        Result<T> result = co_await make();
        Status s = result.status();
        if (result.ok()) value->emplace(std::move(result));
        co_return s;
      },
      timeout);
  if (!status.ok()) return status;
  // The coroutine filled `value` before it finished the call.
  return std::move(**value);
}

}  // namespace sluice::service

#include "sluice/service/io_thread.h"

#include <pthread.h>

#include <algorithm>

namespace sluice::service {

IoThread::IoThread(std::string name) : work_(asio::make_work_guard(context_)) {
  thread_ = std::thread([this, name = std::move(name)] {
    pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
    context_.run();
  });
}

IoThread::~IoThread() { Stop(); }

void IoThread::Call::Finish(Status s) {
  std::lock_guard<std::mutex> lock(mu);
  if (!status.has_value()) status = std::move(s);
  done.notify_all();
}

void IoThread::Stop() {
  SLUICE_CHECK(!InIoThread()) << "IoThread::Stop called from its own thread";
  std::list<std::shared_ptr<Call>> calls;
  std::list<std::pair<uint64_t, std::function<void()>>> callbacks;
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (stopped_) return;
    stopped_ = true;
    calls.swap(calls_);
    callbacks.swap(stop_callbacks_);
  }
  for (const auto& call : calls) call->Finish(CancelledError("the service's io thread stopped"));
  for (const auto& [id, callback] : callbacks) callback();
  work_.reset();
  context_.stop();
  if (thread_.joinable()) thread_.join();
}

uint64_t IoThread::OnStop(std::function<void()> callback) {
  {
    std::lock_guard<std::mutex> lock(calls_mu_);
    if (!stopped_) {
      stop_callbacks_.emplace_back(next_stop_callback_, std::move(callback));
      return next_stop_callback_++;
    }
  }
  callback();
  return 0;
}

void IoThread::RemoveOnStop(uint64_t id) {
  std::lock_guard<std::mutex> lock(calls_mu_);
  stop_callbacks_.remove_if([id](const auto& entry) { return entry.first == id; });
}

std::shared_ptr<IoThread::Call> IoThread::Register() {
  auto call = std::make_shared<Call>();
  std::lock_guard<std::mutex> lock(calls_mu_);
  if (stopped_) {
    call->status = CancelledError("the service's io thread stopped");
  } else {
    calls_.push_back(call);
  }
  return call;
}

void IoThread::Unregister(const std::shared_ptr<Call>& call) {
  std::lock_guard<std::mutex> lock(calls_mu_);
  calls_.remove(call);
}

Status IoThread::Await(const std::shared_ptr<Call>& call, std::chrono::milliseconds timeout) {
  Status result;
  {
    std::unique_lock<std::mutex> lock(call->mu);
    if (!call->done.wait_for(lock, timeout, [&] { return call->status.has_value(); })) {
      result = DeadlineExceededError("no result within ", timeout.count(), " ms");
    } else {
      result = *call->status;
    }
  }
  Unregister(call);
  return result;
}

Status IoThread::RunBlocking(std::function<asio::awaitable<Status>()> make, std::chrono::milliseconds timeout) {
  SLUICE_CHECK(!InIoThread()) << "a blocking call on the io thread would wait for itself";
  std::shared_ptr<Call> call = Register();
  {
    std::lock_guard<std::mutex> lock(call->mu);
    if (call->status.has_value()) return *call->status;
  }
  asio::co_spawn(
      context_,
      [make = std::move(make), call]() -> asio::awaitable<void> {
        Status status = co_await make();
        call->Finish(std::move(status));
      },
      asio::detached);
  return Await(call, timeout);
}

}  // namespace sluice::service

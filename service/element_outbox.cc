#include "sluice/service/element_outbox.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include <condition_variable>
#include <deque>
#include <mutex>

namespace sluice::service {
namespace {

// How often a waiting caller looks at whether the connection closed (a
// close does not signal the outbox).
constexpr std::chrono::milliseconds kClosePoll{20};

// A frame's payload bytes, counted against max_bytes.
uint64_t PayloadBytes(const OutgoingFrame& item) {
  const EncodedElement* element = std::get_if<EncodedElement>(&item);
  return element == nullptr ? 0 : element->payload_bytes;
}

}  // namespace

struct ElementOutbox::State {
  std::shared_ptr<Connection> connection;
  size_t depth = 0;
  uint64_t max_bytes = 0;
  std::mutex mu;
  std::condition_variable changed;
  std::deque<OutgoingFrame> items;  // GUARDED_BY(mu)
  uint64_t bytes = 0;    // GUARDED_BY(mu): payload bytes of items and those being written
  size_t writing = 0;    // GUARDED_BY(mu): the frames the coroutine holds
  bool running = false;  // GUARDED_BY(mu): the coroutine is spawned
  int waiting = 0;       // GUARDED_BY(mu): callers waiting for room
  Status failure;        // GUARDED_BY(mu)

  size_t Pending() const { return items.size() + writing; }
  bool HasRoom() const { return Pending() == 0 || (Pending() < depth && bytes < max_bytes); }
  // Whether a caller waiting for room should wake: half the outbox written.
  bool HalfEmpty() const { return Pending() <= depth / 2 && bytes <= max_bytes / 2; }
  // Waits until `done`, a failure, a closed connection or `deadline`:
  // whether `done` holds. REQUIRES: `lock` holds mu.
  template <typename Done>
  bool WaitUntil(std::unique_lock<std::mutex>& lock, Clock::time_point deadline, Done done) {
    while (!done() && failure.ok() && connection->closed().ok()) {
      const Clock::time_point now = Clock::now();
      if (now >= deadline) return false;
      changed.wait_until(lock, std::min(deadline, now + kClosePoll));
    }
    return done();
  }
  Status FailureOrClose() const { return failure.ok() ? connection->closed() : failure; }
};

namespace {

asio::awaitable<void> WriteOutbox(std::shared_ptr<ElementOutbox::State> state) {
  for (;;) {
    std::vector<OutgoingFrame> frames;
    uint64_t frames_bytes = 0;
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (state->items.empty() || !state->failure.ok()) {
        state->running = false;
        state->changed.notify_all();
        co_return;
      }
      // What waits, gathered into one write.
      do {
        frames_bytes += PayloadBytes(state->items.front());
        frames.push_back(std::move(state->items.front()));
        state->items.pop_front();
      } while (!state->items.empty() &&
               frames_bytes + PayloadBytes(state->items.front()) <= ElementOutbox::kMaxGatherBytes);
      state->writing = frames.size();
    }
    Connection& connection = *state->connection;
    // Credit is waited for as long as the connection is open: a consumer
    // may pause between reads for as long as it likes.
    const Status status = co_await connection.SendFrames(std::move(frames), kNoTimeout);
    std::lock_guard<std::mutex> lock(state->mu);
    state->writing = 0;
    state->bytes -= frames_bytes;
    if (!status.ok() && state->failure.ok()) state->failure = status;
    // A waiting caller wakes once half the outbox is written, a flush once
    // all of it is.
    if (!status.ok() || state->Pending() == 0 || (state->waiting > 0 && state->HalfEmpty())) {
      state->changed.notify_all();
    }
  }
}

}  // namespace

ElementOutbox::ElementOutbox(std::shared_ptr<Connection> connection, size_t depth, uint64_t max_bytes)
    : state_(std::make_shared<State>()) {
  state_->connection = std::move(connection);
  state_->depth = std::max<size_t>(depth, 1);
  state_->max_bytes = max_bytes;
}

Status ElementOutbox::Send(Frame frame, std::chrono::milliseconds timeout) {
  std::vector<OutgoingFrame> frames;
  frames.emplace_back(std::move(frame));
  return Queue(std::move(frames), timeout);
}

Status ElementOutbox::SendElement(EncodedElement element, std::chrono::milliseconds timeout) {
  std::vector<OutgoingFrame> frames;
  frames.emplace_back(std::move(element));
  return Queue(std::move(frames), timeout);
}

Status ElementOutbox::SendFrames(std::vector<OutgoingFrame> frames, std::chrono::milliseconds timeout) {
  if (frames.empty()) return OkStatus();
  return Queue(std::move(frames), timeout);
}

Result<size_t> ElementOutbox::AwaitRoom(std::chrono::milliseconds timeout) {
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mu);
  SLUICE_RETURN_IF_ERROR(WaitForRoom(lock, timeout));
  return state.depth > state.Pending() ? state.depth - state.Pending() : size_t{1};
}

Status ElementOutbox::WaitForRoom(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds timeout) {
  State& state = *state_;
  if (!state.HasRoom()) {
    ++state.waiting;
    const bool room = state.WaitUntil(lock, DeadlineAfter(timeout), [&] { return state.HalfEmpty(); });
    --state.waiting;
    if (!room) {
      if (Status failed = state.FailureOrClose(); !failed.ok()) return failed;
      return DeadlineExceededError("no room to send to ", state.connection->peer().address, " within ",
                                   timeout.count(), " ms (", state.Pending(), " frames, ", state.bytes,
                                   " payload bytes waiting)");
    }
  }
  return state.FailureOrClose();
}

Status ElementOutbox::Queue(std::vector<OutgoingFrame> frames, std::chrono::milliseconds timeout) {
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mu);
  SLUICE_RETURN_IF_ERROR(WaitForRoom(lock, timeout));
  for (OutgoingFrame& frame : frames) {
    state.bytes += PayloadBytes(frame);
    state.items.push_back(std::move(frame));
  }
  if (!state.running) {
    state.running = true;
    asio::co_spawn(state.connection->io().executor(), WriteOutbox(state_), asio::detached);
  }
  return OkStatus();
}

Status ElementOutbox::Flush(std::chrono::milliseconds timeout) {
  State& state = *state_;
  std::unique_lock<std::mutex> lock(state.mu);
  if (state.WaitUntil(lock, DeadlineAfter(timeout), [&] { return state.Pending() == 0; })) return state.failure;
  if (Status failed = state.FailureOrClose(); !failed.ok()) return failed;
  return DeadlineExceededError("frames to ", state.connection->peer().address, " not written within ",
                               timeout.count(), " ms (", state.Pending(), " waiting)");
}

}  // namespace sluice::service

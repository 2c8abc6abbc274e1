// ElementOutbox: the frames a thread sends on one connection (an element
// stream and the control frames between its elements), written in order by
// one coroutine on the connection's io thread, so that the thread encodes
// the next elements while the last ones are written instead of waiting for
// each write (a worker's session sending to its consumer).
//
//   ElementOutbox outbox(connection);
//   SLUICE_RETURN_IF_ERROR(outbox.SendElement(std::move(encoded), timeout));
//   ...
//   SLUICE_RETURN_IF_ERROR(outbox.Flush(timeout));
//
// The coroutine gathers what waits into one write (Connection::SendFrames,
// up to kMaxGatherBytes of payload), so a stream of small elements costs a
// system call per many elements. A send waits while the outbox is full,
// until half of it is written, so that the sending thread wakes once per
// several writes; it is full at `depth` frames or `max_bytes` of payload
// waiting or being written. A send's frames go in together once there is
// room: a caller that sends several at once (SendFrames) asks AwaitRoom
// how many fit first, so that the outbox holds at most `depth` frames (a
// worker's session takes no more of its job's elements than its consumer
// will soon read, and leaves the rest to the job's other consumers). Each
// element waits for the peer's credit (as Connection::SendElement) for as
// long as the connection is open: a peer that pauses between reads is slow,
// not gone (a write that makes no progress still fails after the
// connection's write_timeout). The first failed write ends the outbox:
// every later call returns its status (the failure has closed the
// connection, or will have once the caller closes it). A closed connection
// ends every wait at once.
// Thread safety: one thread at a time calls Send, SendElement, SendFrames
// and Flush, never the io thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/service/connection.h"
#include "sluice/service/element_codec.h"

namespace sluice::service {

class ElementOutbox {
 public:
  // The most payload bytes one write gathers (more go when a single
  // element is larger).
  static constexpr uint64_t kMaxGatherBytes = uint64_t{1} << 20;

  explicit ElementOutbox(std::shared_ptr<Connection> connection, size_t depth = 16,
                         uint64_t max_bytes = uint64_t{4} << 20);
  ElementOutbox(const ElementOutbox&) = delete;
  ElementOutbox& operator=(const ElementOutbox&) = delete;

  // Queues a frame, waiting at most `timeout` for room (DeadlineExceeded);
  // the outbox's failure, if a write failed.
  Status Send(Frame frame, std::chrono::milliseconds timeout);
  Status SendElement(EncodedElement element, std::chrono::milliseconds timeout);
  Status SendFrames(std::vector<OutgoingFrame> frames, std::chrono::milliseconds timeout);
  // Waits at most `timeout` until the outbox has room; how many frames fit
  // (at least one), or why none will (as Send).
  Result<size_t> AwaitRoom(std::chrono::milliseconds timeout);
  // Waits at most `timeout` until every queued frame is written; the
  // outbox's failure, if a write failed.
  Status Flush(std::chrono::milliseconds timeout);

  struct State;

 private:
  // Waits until the outbox has room; REQUIRES: `lock` holds the state's mutex.
  Status WaitForRoom(std::unique_lock<std::mutex>& lock, std::chrono::milliseconds timeout);
  Status Queue(std::vector<OutgoingFrame> frames, std::chrono::milliseconds timeout);

  std::shared_ptr<State> state_;  // shared with the writing coroutine
};

}  // namespace sluice::service

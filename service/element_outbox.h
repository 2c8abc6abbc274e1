// ElementOutbox: the frames a thread sends on one connection (an element
// stream and the control frames between its elements), written in order by
// one coroutine on the connection's io thread, so that the thread encodes
// the next element while the last one is written instead of waiting for
// each write (a worker's session sending to its consumer).
//
//   ElementOutbox outbox(connection);
//   SLUICE_RETURN_IF_ERROR(outbox.SendElement(std::move(encoded), timeout));
//   ...
//   SLUICE_RETURN_IF_ERROR(outbox.Flush(timeout));
//
// At most `depth` frames, and elements of at most `max_bytes` of payload
// (one always fits), wait or are being written; a send waits while the
// outbox is full, until half of it is written, so that the sending thread
// wakes once per several writes. Each element waits for the peer's credit (as
// Connection::SendElement) within the connection's write_timeout. The
// first failed write ends the outbox: every later call returns its status
// (the failure has closed the connection, or will have once the caller
// closes it). A closed connection ends every wait at once.
// Thread safety: one thread at a time calls Send, SendElement and Flush,
// never the io thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <variant>

#include "sluice/core/status.h"
#include "sluice/service/connection.h"
#include "sluice/service/element_codec.h"

namespace sluice::service {

class ElementOutbox {
 public:
  explicit ElementOutbox(std::shared_ptr<Connection> connection, size_t depth = 16,
                         uint64_t max_bytes = uint64_t{4} << 20);
  ElementOutbox(const ElementOutbox&) = delete;
  ElementOutbox& operator=(const ElementOutbox&) = delete;

  // Queues a frame, waiting at most `timeout` for room (DeadlineExceeded);
  // the outbox's failure, if a write failed.
  Status Send(Frame frame, std::chrono::milliseconds timeout);
  Status SendElement(EncodedElement element, std::chrono::milliseconds timeout);
  // Waits at most `timeout` until every queued frame is written; the
  // outbox's failure, if a write failed.
  Status Flush(std::chrono::milliseconds timeout);

  struct State;

 private:
  Status Queue(std::variant<Frame, EncodedElement> item, std::chrono::milliseconds timeout);

  std::shared_ptr<State> state_;  // shared with the writing coroutine
};

}  // namespace sluice::service

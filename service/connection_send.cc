// Connection's writer (service/connection.h): frames written in turns, each
// write under the write watchdog; elements sent as the peer's credit allows;
// and the credit this end grants and gives back for the elements it takes.
#include "sluice/service/connection.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

namespace sluice::service {

void Connection::ArmWriteWatchdog() {
  if (write_watchdog_armed_) return;
  write_watchdog_armed_ = true;
  write_watchdog_.expires_at(last_write_progress_ + options_.write_timeout);
  write_watchdog_.async_wait([weak = weak_from_this()](boost::system::error_code error) {
    std::shared_ptr<Connection> self = weak.lock();
    if (self == nullptr) return;
    self->write_watchdog_armed_ = false;
    if (error || !self->writing_) return;
    if (Clock::now() - self->last_write_progress_ >= self->options_.write_timeout) {
      self->CloseOnIoThread(DeadlineExceededError("the peer ", self->peer_.address, " read nothing for ",
                                                  self->options_.write_timeout.count(), " ms"));
      return;
    }
    self->ArmWriteWatchdog();
  });
}

asio::awaitable<Status> Connection::Write(std::vector<asio::const_buffer> buffers, uint64_t frames) {
  const Clock::time_point deadline = DeadlineAfter(options_.write_timeout);
  while (writing_ && closed().ok()) {
    if (!co_await write_turn_.Wait(deadline) && writing_) {
      Status s = DeadlineExceededError("a write to ", peer_.address, " waited ", options_.write_timeout.count(),
                                       " ms for its turn");
      CloseOnIoThread(s);
      co_return s;
    }
  }
  if (Status s = closed(); !s.ok()) co_return s;
  writing_ = true;
  // The write's deadline moves with its progress: a large payload may take
  // long, a peer that stops reading may not. One timer per connection
  // watches every write.
  last_write_progress_ = Clock::now();
  ArmWriteWatchdog();
  boost::system::error_code error;
  co_await WriteAll(std::move(buffers), error);
  writing_ = false;
  write_turn_.NotifyAll();
  if (error) {
    Status s = SocketError(error, "writing to");
    CloseOnIoThread(s);
    co_return s;
  }
  counters_.frames_sent += frames;
  ++counters_.writes;
  co_return OkStatus();
}

asio::awaitable<Status> Connection::Send(Frame frame) {
  std::vector<OutgoingFrame> frames;
  frames.emplace_back(std::move(frame));
  co_return co_await SendFrames(std::move(frames), std::chrono::milliseconds(0));  // no credit needed
}

asio::awaitable<Status> Connection::SendElement(EncodedElement element, std::chrono::milliseconds credit_timeout) {
  std::vector<OutgoingFrame> frames;
  frames.emplace_back(std::move(element));
  co_return co_await SendFrames(std::move(frames), credit_timeout);
}

asio::awaitable<Status> Connection::AwaitCredit(Clock::time_point deadline) {
  bool counted = false;
  while (!sender_credit_.CanSend()) {
    if (Status s = closed(); !s.ok()) co_return s;
    if (!counted) {
      ++counters_.credit_waits;
      counted = true;
    }
    if (!co_await credit_changed_.Wait(deadline) && !sender_credit_.CanSend() && closed().ok()) {
      co_return DeadlineExceededError("no credit from ", peer_.address, " before the deadline (",
                                      sender_credit_.elements(), " elements, ", sender_credit_.bytes(),
                                      " bytes left)");
    }
  }
  co_return OkStatus();
}

asio::awaitable<Status> Connection::SendFrames(std::vector<OutgoingFrame> frames,
                                               std::chrono::milliseconds credit_timeout) {
  // The gathered frames' heads, reserved up front so that the buffers that
  // point into them stay valid; the payload pieces point into `frames`.
  std::vector<std::string> heads;
  heads.reserve(frames.size());
  std::vector<asio::const_buffer> buffers;
  uint64_t gathered = 0, elements = 0, payload_bytes = 0;
  auto write_gathered = [&]() -> asio::awaitable<Status> {
    if (gathered == 0) co_return OkStatus();
    Status status = co_await Write(std::move(buffers), gathered);
    if (status.ok()) {
      counters_.elements_sent += elements;
      counters_.payload_bytes_sent += payload_bytes;
    }
    buffers.clear();
    gathered = elements = payload_bytes = 0;
    co_return status;
  };
  for (OutgoingFrame& item : frames) {
    Frame frame;
    EncodedElement* element = std::get_if<EncodedElement>(&item);
    if (element == nullptr) {
      frame = std::move(std::get<Frame>(item));
    } else {
      *frame.mutable_element() = std::move(element->header);
    }
    const bool is_error = frame.has_element_error() && ErrorsTakeCredit();
    const bool needs_credit = (element != nullptr && !frame.element().end_of_stream()) || is_error;
    if (needs_credit) {
      if (!sender_credit_.CanSend()) {
        if (Status s = co_await write_gathered(); !s.ok()) co_return s;
        if (Status s = co_await AwaitCredit(DeadlineAfter(credit_timeout)); !s.ok()) co_return s;
      }
      sender_credit_.Spend(is_error ? DecodedBytes(frame.element_error())
                                    : DecodedBytes(frame.element(), element->payload_bytes));
    }
    Result<std::string> head = EncodeFrameHead(frame, element == nullptr ? 0 : element->payload_bytes);
    if (!head.ok()) {
      (void)co_await write_gathered();
      co_return head.status();
    }
    const std::string& kept = heads.emplace_back(*std::move(head));
    buffers.emplace_back(kept.data(), kept.size());
    if (element != nullptr) {
      for (const auto& piece : element->payload) buffers.emplace_back(piece.data(), piece.size());
    }
    ++gathered;
    if (element != nullptr && needs_credit) {
      ++elements;
      payload_bytes += element->payload_bytes;
    }
  }
  co_return co_await write_gathered();
}

asio::awaitable<Status> Connection::GrantCredit(uint64_t bytes, uint64_t elements) {
  receiver_credit_.Grant(bytes, elements);
  {
    std::lock_guard<std::mutex> lock(returns_mu_);
    credit_returns_.Widen(bytes, elements);
  }
  Frame frame;
  frame.mutable_credit()->set_bytes(bytes);
  frame.mutable_credit()->set_elements(elements);
  co_return co_await Send(std::move(frame));
}

void Connection::ReturnCredit(uint64_t bytes, uint64_t elements) {
  bool due = false;
  {
    std::lock_guard<std::mutex> lock(returns_mu_);
    due = credit_returns_.Add(bytes, elements);
  }
  if (due) asio::post(socket_.get_executor(), [self = shared_from_this()] { self->SendReturnedCredit(); });
}

void Connection::SendReturnedCredit() {
  if (!closed().ok()) return;
  CreditReturns::Batch batch;
  {
    std::lock_guard<std::mutex> lock(returns_mu_);
    batch = credit_returns_.Take(receiver_credit_);
  }
  if (batch.bytes == 0 && batch.elements == 0) return;
  receiver_credit_.Grant(batch.bytes, batch.elements);
  Frame frame;
  frame.mutable_credit()->set_bytes(batch.bytes);
  frame.mutable_credit()->set_elements(batch.elements);
  // A failed write closes the connection, which every waiter then sees.
  asio::co_spawn(
      socket_.get_executor(),
      [self = shared_from_this(), frame = std::move(frame)]() mutable -> asio::awaitable<void> {
        (void)co_await self->Send(std::move(frame));
      },
      asio::detached);
}

namespace {

// How long a blocking caller waits beyond the coroutine's own deadline: the
// io thread may be busy with other connections.
constexpr std::chrono::milliseconds kBlockingSlack{1000};

}  // namespace

Status Connection::SendBlocking(Frame frame, std::chrono::milliseconds timeout) {
  return io_->RunBlocking(
      [self = shared_from_this(), frame = std::move(frame)]() mutable { return self->Send(std::move(frame)); },
      timeout);
}

Status Connection::SendElementBlocking(EncodedElement element, std::chrono::milliseconds timeout) {
  auto shared = std::make_shared<EncodedElement>(std::move(element));
  return io_->RunBlocking(
      [self = shared_from_this(), shared, timeout] { return self->SendElement(std::move(*shared), timeout); },
      timeout + kBlockingSlack);
}

Status Connection::GrantCreditBlocking(uint64_t bytes, uint64_t elements, std::chrono::milliseconds timeout) {
  return io_->RunBlocking([self = shared_from_this(), bytes, elements] { return self->GrantCredit(bytes, elements); },
                          timeout);
}
}  // namespace sluice::service

#include "sluice/service/connection.h"

#include <sched.h>

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstring>

#include "sluice/service/address.h"

namespace sluice::service {
namespace {

// A timer that closes the connection when `deadline` passes before it is
// destroyed: the deadline of one read or write.
class Watchdog {
 public:
  Watchdog(std::shared_ptr<Connection> connection, asio::io_context::executor_type executor,
           Clock::time_point deadline, std::string what)
      : timer_(executor) {
    if (deadline == Clock::time_point::max()) return;
    timer_.expires_at(deadline);
    timer_.async_wait([connection = std::move(connection), what = std::move(what)](boost::system::error_code error) {
      if (!error) connection->Close(DeadlineExceededError(what));
    });
  }
  ~Watchdog() { timer_.cancel(); }

 private:
  asio::steady_timer timer_;
};

// Plain TCP: a read or write the socket can take now is made at once, in
// the coroutine, and only one that would block waits for the reactor, so a
// stream whose bytes are there costs one system call per read instead of a
// pass through the io_context's queue (and its epoll_wait) as well. After
// this many immediate calls in a row the coroutine yields once, so that the
// io thread's other connections and timers get their turn.
constexpr int kImmediateTurns = 4;

// What the reader asks the socket for at once: many small frames, or the
// head and first bytes of a large element.
constexpr size_t kReceiveBufferBytes = 64 << 10;
// A payload with this much or more left once the receive buffer's bytes
// are used is read straight into the element's buffer; a smaller rest
// comes through the receive buffer with the frames behind it.
constexpr uint64_t kDirectReadBytes = 16 << 10;
// What the reader asks for after a frame with such a payload: the next
// frame is likely another, so it reads little past that frame's head and
// the payload goes straight into its buffer, not through the receive
// buffer (a copy of every byte, as much work as the kernel's own copy).
constexpr size_t kHeadReadBytes = 1 << 10;

std::string RemoteAddress(const asio::ip::tcp::socket& socket) {
  boost::system::error_code error;
  const asio::ip::tcp::endpoint endpoint = socket.remote_endpoint(error);
  if (error) return "(unknown)";
  return HostPort{endpoint.address().to_string(), endpoint.port()}.ToString();
}

}  // namespace

struct Connection::TlsLayer {
  TlsLayer(asio::ip::tcp::socket& socket, asio::ssl::context& context) : stream(socket, context) {}
  asio::ssl::stream<asio::ip::tcp::socket&> stream;
};

std::shared_ptr<Connection> Connection::Make(IoThread& io, asio::ip::tcp::socket socket, ConnectionOptions options) {
  auto connection = std::make_shared<Connection>(PrivateKey{}, io, std::move(socket), std::move(options));
  connection->stop_callback_ = io.OnStop([weak = std::weak_ptr<Connection>(connection)] {
    if (auto c = weak.lock()) c->OnIoThreadStopped();
  });
  return connection;
}

void Connection::OnIoThreadStopped() {
  {
    std::lock_guard<std::mutex> lock(closed_mu_);
    if (closed_.ok()) {
      closed_ = CancelledError("the service's io thread stopped");
      is_closed_.store(true, std::memory_order_release);
    }
  }
  std::lock_guard<std::mutex> lock(inbox_mu_);
  inbox_cv_.notify_all();
}

Connection::Connection(PrivateKey, IoThread& io, asio::ip::tcp::socket socket, ConnectionOptions options)
    : io_(&io), socket_(std::move(socket)), options_(std::move(options)), write_watchdog_(io.executor()) {
  boost::system::error_code ignored;
  socket_.set_option(asio::ip::tcp::no_delay(true), ignored);
  // Reads and writes are tried at once and wait for the reactor only when
  // they would block (ReadSome, WriteAll).
  socket_.non_blocking(true, ignored);
  peer_.address = RemoteAddress(socket_);
}

Connection::~Connection() {
  io_->RemoveOnStop(stop_callback_);
  boost::system::error_code ignored;
  socket_.close(ignored);
}

Status Connection::closed() const {
  if (!is_closed_.load(std::memory_order_acquire)) return OkStatus();
  std::lock_guard<std::mutex> lock(closed_mu_);
  return closed_;
}

void Connection::Close(Status reason) {
  SLUICE_CHECK(!reason.ok()) << "Connection::Close needs a reason";
  asio::dispatch(socket_.get_executor(),
                 [self = shared_from_this(), reason = std::move(reason)] { self->CloseOnIoThread(reason); });
}

void Connection::CloseOnIoThread(Status reason) {
  {
    std::lock_guard<std::mutex> lock(closed_mu_);
    if (!closed_.ok()) return;
    closed_ = std::move(reason);
    is_closed_.store(true, std::memory_order_release);
  }
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  write_turn_.NotifyAll();
  inbox_changed_.NotifyAll();
  inbox_room_.NotifyAll();
  credit_changed_.NotifyAll();
  write_watchdog_.cancel();
  std::lock_guard<std::mutex> lock(inbox_mu_);
  inbox_cv_.notify_all();
}

Status Connection::SocketError(const boost::system::error_code& error, std::string_view what) const {
  Status closed_status = closed();
  if (!closed_status.ok()) return closed_status;
  if (error == asio::error::eof || error == asio::error::connection_reset || error == asio::error::broken_pipe) {
    return UnavailableError("the peer ", peer_.address, " closed the connection (", what, ")");
  }
  return UnavailableError(what, " ", peer_.address, " failed: ", error.message());
}

ConnectionCounters Connection::counters() const {
  return ConnectionCounters{counters_.frames_sent.load(),       counters_.frames_received.load(),
                            counters_.elements_sent.load(),     counters_.elements_received.load(),
                            counters_.payload_bytes_sent.load(), counters_.payload_bytes_received.load(),
                            counters_.credit_waits.load(),       counters_.writes.load()};
}

asio::awaitable<void> Connection::YieldAfterImmediate(int& streak) {
  if (++streak < kImmediateTurns) co_return;
  streak = 0;
  co_await asio::post(socket_.get_executor(), asio::use_awaitable);
}

asio::awaitable<size_t> Connection::ReadSome(std::array<asio::mutable_buffer, 2> into,
                                             boost::system::error_code& error) {
  auto token = asio::redirect_error(asio::use_awaitable, error);
  if (tls_ != nullptr) co_return co_await tls_->stream.async_read_some(into, token);
  while (true) {
    const size_t n = socket_.read_some(into, error);
    if (error != asio::error::would_block && error != asio::error::try_again) {
      if (!error) co_await YieldAfterImmediate(read_streak_);
      co_return n;
    }
    read_streak_ = 0;
    co_await socket_.async_wait(asio::socket_base::wait_read, token);
    if (error) co_return 0;
  }
}

asio::awaitable<void> Connection::ReadExactly(asio::mutable_buffer into, boost::system::error_code& error) {
  while (into.size() > 0) {
    const size_t n = co_await ReadSome({into, asio::mutable_buffer()}, error);
    if (error) co_return;
    into += n;
  }
}

asio::awaitable<void> Connection::WriteAll(std::vector<asio::const_buffer> buffers, boost::system::error_code& error) {
  auto token = asio::redirect_error(asio::use_awaitable, error);
  if (tls_ != nullptr) {
    auto progress = [this](const boost::system::error_code& write_error, size_t) -> size_t {
      last_write_progress_ = Clock::now();
      return write_error ? 0 : 1 << 20;  // up to 1 MiB more per write call
    };
    co_await asio::async_write(tls_->stream, buffers, progress, token);
    co_return;
  }
  std::erase_if(buffers, [](const asio::const_buffer& b) { return b.size() == 0; });
  while (!buffers.empty()) {
    size_t n = socket_.write_some(buffers, error);
    if (error == asio::error::would_block || error == asio::error::try_again) {
      write_streak_ = 0;
      co_await socket_.async_wait(asio::socket_base::wait_write, token);
      if (error) co_return;
      continue;
    }
    if (error) co_return;
    last_write_progress_ = Clock::now();
    size_t written = 0;  // whole buffers
    while (written < buffers.size() && n >= buffers[written].size()) n -= buffers[written++].size();
    buffers.erase(buffers.begin(), buffers.begin() + static_cast<std::ptrdiff_t>(written));
    if (!buffers.empty()) buffers.front() += n;
    co_await YieldAfterImmediate(write_streak_);
  }
}

asio::awaitable<Status> Connection::StartTls(std::shared_ptr<asio::ssl::context> context, TlsSide side,
                                             std::string host, Clock::time_point deadline) {
  SLUICE_CHECK(tls_ == nullptr && !started_) << "Connection::StartTls after TLS or Start";
  Watchdog watchdog(shared_from_this(), io_->executor(), deadline,
                    StrCat("the TLS handshake with ", peer_.address, " did not finish before the deadline"));
  boost::system::error_code error;
  if (side == TlsSide::kServer) {
    // A TLS hello starts with a handshake record (0x16); a plain client's
    // first frame with the magic's first byte.
    char first = 0;
    co_await socket_.async_receive(asio::buffer(&first, 1), asio::socket_base::message_peek,
                                   asio::redirect_error(asio::use_awaitable, error));
    if (error) co_return SocketError(error, "waiting for the TLS hello of");
    if (first == static_cast<char>(kFrameMagic & 0xff)) {
      // Its Hello is read before the answer, so that closing sends FIN, not
      // a reset that could discard the answer at the client.
      (void)co_await ReadFrame(FrameLimits{kMaxHandshakeFrameBytes, 0}, deadline);
      Status refusal = FailedPreconditionError("this server requires TLS: connect with TLS (a CA file for its ",
                                               "certificate)");
      Frame frame;
      frame.mutable_error()->set_code(static_cast<uint32_t>(refusal.code()));
      frame.mutable_error()->set_message(refusal.message());
      (void)co_await Send(std::move(frame));
      Status s = FailedPreconditionError("the client ", peer_.address, " connected without TLS to a TLS server");
      CloseOnIoThread(s);
      co_return s;
    }
  }
  tls_context_ = std::move(context);
  tls_ = std::make_unique<TlsLayer>(socket_, *tls_context_);
  if (side == TlsSide::kClient) {
    boost::system::error_code not_an_address;
    (void)asio::ip::make_address(host, not_an_address);
    // Server name indication, for a server behind a name.
    if (not_an_address) SSL_set_tlsext_host_name(tls_->stream.native_handle(), host.c_str());
    tls_->stream.set_verify_callback(asio::ssl::host_name_verification(host));
  }
  co_await tls_->stream.async_handshake(
      side == TlsSide::kServer ? asio::ssl::stream_base::server : asio::ssl::stream_base::client,
      asio::redirect_error(asio::use_awaitable, error));
  if (error) {
    Status s = closed();
    if (s.ok()) {
      s = UnavailableError("the TLS handshake with ", peer_.address, " failed: ", error.message(),
                           side == TlsSide::kClient ? " (does the server use TLS, with a certificate from this CA?)"
                                                    : "");
    }
    CloseOnIoThread(s);
    co_return s;
  }
  co_return OkStatus();
}

Result<ReceivedFrame> Connection::BeginFrame(const FrameEvent& event) {
  ReceivedFrame received;
  if (!received.frame.ParseFromArray(event.header.data(), static_cast<int>(event.header.size()))) {
    return DataLossError("frame at stream offset ", event.frame_offset, " from ", peer_.address, ": its header of ",
                         event.header.size(), " bytes is not a valid message");
  }
  const bool element = received.frame.kind_case() == Frame::kElement;
  if (event.payload_bytes > 0 && !element) {
    return DataLossError("frame at stream offset ", event.frame_offset, " from ", peer_.address,
                         ": only an element carries a payload, this frame (kind ",
                         static_cast<int>(received.frame.kind_case()), ") has ", event.payload_bytes, " bytes");
  }
  if (started_ && element && !received.frame.element().end_of_stream()) {
    // Charge the credit before allocating: the limit holds for the bytes.
    SLUICE_RETURN_IF_ERROR(receiver_credit_.Receive(DecodedBytes(received.frame.element(), event.payload_bytes)));
  }
  if (started_ && received.frame.has_element_error() && ErrorsTakeCredit()) {
    SLUICE_RETURN_IF_ERROR(receiver_credit_.Receive(DecodedBytes(received.frame.element_error())));
  }
  if (event.payload_bytes > 0) {
    SLUICE_ASSIGN_OR_RETURN(received.payload, Buffer::TryAllocate(event.payload_bytes, CpuAllocator(),
                                                                  Buffer::Fill::kUninitialized));
  }
  return received;
}

void Connection::CountReceived(const ReceivedFrame& received) {
  ++counters_.frames_received;
  if (received.frame.kind_case() == Frame::kElement && !received.frame.element().end_of_stream()) {
    ++counters_.elements_received;
  }
  if (received.payload != nullptr) counters_.payload_bytes_received += received.payload->size();
}

asio::awaitable<Result<ReceivedFrame>> Connection::ReadFrame(FrameLimits limits, Clock::time_point deadline) {
  Watchdog watchdog(shared_from_this(), io_->executor(), deadline,
                    StrCat("no frame from ", peer_.address, " before the deadline"));
  parser_.set_limits(limits);
  boost::system::error_code error;
  std::string bytes;
  FrameEvent event;
  // The prefix, then the header: exact reads (nothing of the frames behind
  // is read, they belong to the reader Start begins), each fed to the parser.
  while (event.kind != FrameEvent::Kind::kHeader) {
    if (Status s = closed(); !s.ok()) co_return s;
    bytes.resize(parser_.bytes_wanted());
    co_await ReadExactly(asio::buffer(bytes), error);
    if (error) co_return SocketError(error, "reading a frame from");
    size_t consumed = 0;
    Result<FrameEvent> next = parser_.Next(std::as_bytes(std::span(bytes)), &consumed);
    if (!next.ok()) {
      CloseOnIoThread(next.status());
      co_return next.status();
    }
    event = *next;
  }
  Result<ReceivedFrame> received = BeginFrame(event);
  if (!received.ok()) {
    CloseOnIoThread(received.status());
    co_return received.status();
  }
  if (received->payload != nullptr) {
    Buffer& payload = *received->payload;
    co_await ReadExactly(asio::buffer(payload.data(), payload.size()), error);
    if (error) co_return SocketError(error, "reading an element payload from");
    size_t consumed = 0;
    Result<FrameEvent> done =
        parser_.Next(std::span(static_cast<const std::byte*>(payload.data()), payload.size()), &consumed);
    SLUICE_CHECK(done.ok() && done->payload_done) << "the parser lost track of a payload";
  }
  CountReceived(*received);
  co_return received;
}

void Connection::Start() {
  SLUICE_CHECK(!started_) << "Connection::Start called twice";
  started_ = true;
  asio::co_spawn(socket_.get_executor(), [self = shared_from_this()] { return self->ReadLoop(); }, asio::detached);
}

Status Connection::Parse(std::span<const std::byte> data) {
  while (!data.empty()) {
    size_t consumed = 0;
    Result<FrameEvent> event = parser_.Next(data, &consumed);
    if (!event.ok()) return event.status();
    data = data.subspan(consumed);
    if (event->kind == FrameEvent::Kind::kHeader) {
      last_payload_bytes_ = event->payload_bytes;
      SLUICE_ASSIGN_OR_RETURN(ReceivedFrame received, BeginFrame(*event));
      if (received.payload == nullptr) {
        Complete(std::move(received));
      } else {
        incoming_ = std::move(received);
        incoming_filled_ = 0;
      }
    } else if (event->kind == FrameEvent::Kind::kPayload) {
      std::byte* target = static_cast<std::byte*>(incoming_->payload->data()) + incoming_filled_;
      // A direct read put the bytes in place already.
      if (event->payload.data() != target) std::memcpy(target, event->payload.data(), event->payload.size());
      incoming_filled_ += event->payload.size();
      if (event->payload_done) {
        Complete(std::move(*incoming_));
        incoming_.reset();
      }
    }
  }
  return OkStatus();
}

void Connection::Complete(ReceivedFrame received) {
  CountReceived(received);
  if (received.frame.kind_case() == Frame::kCredit) {
    sender_credit_.Grant(received.frame.credit().bytes(), received.frame.credit().elements());
    credit_changed_.NotifyAll();
    return;
  }
  batch_.push_back(std::move(received));
}

asio::awaitable<bool> Connection::Publish(bool wait_for_room) {
  if (batch_.empty()) co_return closed().ok();
  bool was_empty = false;
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(inbox_mu_);
    was_empty = inbox_.empty();
    for (ReceivedFrame& received : batch_) {
      if (received.frame.kind_case() == Frame::kElement) ++inbox_elements_;
      inbox_.push_back(std::move(received));
    }
    full = QueuedControlFrames() >= options_.max_queued_frames;
    reader_waits_for_room_ = full;
  }
  batch_.clear();
  // A receiver waits only on an empty inbox.
  if (was_empty) {
    inbox_cv_.notify_all();
    inbox_changed_.NotifyAll();
  }
  while (wait_for_room && full && closed().ok()) {
    co_await inbox_room_.Wait(Clock::time_point::max());
    std::lock_guard<std::mutex> lock(inbox_mu_);
    full = QueuedControlFrames() >= options_.max_queued_frames;
    reader_waits_for_room_ = full;
  }
  co_return closed().ok();
}

asio::awaitable<void> Connection::ReadLoop() {
  parser_.set_limits(options_.limits);
  std::vector<std::byte> buffer(kReceiveBufferBytes);
  boost::system::error_code error;
  Status status;
  while (status.ok() && closed().ok()) {
    const uint64_t rest = incoming_.has_value() ? incoming_->payload->size() - incoming_filled_ : 0;
    if (rest >= kDirectReadBytes) {
      // The payload's rest straight into its buffer, and with its last
      // read the head of the frame behind it, into the receive buffer.
      std::byte* target = static_cast<std::byte*>(incoming_->payload->data()) + incoming_filled_;
      uint64_t filled = 0;
      size_t behind = 0;  // bytes past the payload, in buffer
      while (filled < rest) {
        const size_t n = co_await ReadSome(
            {asio::buffer(target + filled, rest - filled), asio::buffer(buffer.data(), kHeadReadBytes)}, error);
        if (error) break;
        behind = n > rest - filled ? n - static_cast<size_t>(rest - filled) : 0;
        filled += n - behind;
      }
      if (error) {
        status = SocketError(error, "reading an element payload from");
        break;
      }
      status = Parse(std::span<const std::byte>(target, rest));
      if (status.ok() && behind > 0) status = Parse(std::span<const std::byte>(buffer.data(), behind));
    } else {
      const size_t want = last_payload_bytes_ >= kDirectReadBytes
                              ? std::clamp<uint64_t>(parser_.bytes_wanted(), kHeadReadBytes, buffer.size())
                              : buffer.size();
      const size_t n = co_await ReadSome({asio::buffer(buffer.data(), want), asio::mutable_buffer()}, error);
      if (error) {
        status = SocketError(error, "reading a frame from");
        break;
      }
      status = Parse(std::span<const std::byte>(buffer.data(), n));
    }
    // Frames parsed before an error still reach the receiver.
    if (!co_await Publish(status.ok())) break;
  }
  (void)co_await Publish(false);
  if (!status.ok()) CloseOnIoThread(status);
  inbox_changed_.NotifyAll();
}

std::optional<Result<ReceivedFrame>> Connection::TakeFromInbox() {
  const Status status = closed();
  const bool local_close = !status.ok() && status.code() == StatusCode::kCancelled;
  if (!inbox_.empty() && !local_close) {
    ReceivedFrame frame = std::move(inbox_.front());
    inbox_.pop_front();
    if (frame.frame.kind_case() == Frame::kElement) --inbox_elements_;
    if (reader_waits_for_room_) {
      reader_waits_for_room_ = false;
      asio::post(socket_.get_executor(), [self = shared_from_this()] { self->inbox_room_.NotifyAll(); });
    }
    return Result<ReceivedFrame>(std::move(frame));
  }
  if (!status.ok()) return Result<ReceivedFrame>(status);
  return std::nullopt;
}

asio::awaitable<Result<ReceivedFrame>> Connection::Receive(Clock::time_point deadline) {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(inbox_mu_);
      if (std::optional<Result<ReceivedFrame>> taken = TakeFromInbox()) co_return std::move(*taken);
    }
    if (!co_await inbox_changed_.Wait(deadline) && Clock::now() >= deadline) {
      std::lock_guard<std::mutex> lock(inbox_mu_);
      if (std::optional<Result<ReceivedFrame>> taken = TakeFromInbox()) co_return std::move(*taken);
      co_return DeadlineExceededError("no frame from ", peer_.address, " before the deadline");
    }
  }
}

namespace {

// How often ReceiveBlocking yields before it sleeps on an empty inbox.
constexpr int kReceiveYields = 50;

}  // namespace

Result<ReceivedFrame> Connection::ReceiveBlocking(std::chrono::milliseconds timeout) {
  std::vector<ReceivedFrame> frames;
  SLUICE_RETURN_IF_ERROR(ReceiveSomeBlocking(timeout, 1, &frames));
  return std::move(frames.front());
}

Status Connection::ReceiveSomeBlocking(std::chrono::milliseconds timeout, size_t max,
                                       std::vector<ReceivedFrame>* out) {
  SLUICE_CHECK(!io_->InIoThread()) << "ReceiveBlocking on the io thread would wait for itself";
  const Clock::time_point deadline = DeadlineAfter(timeout);
  std::unique_lock<std::mutex> lock(inbox_mu_);
  // On an empty inbox, yield the CPU a few times before sleeping: in a
  // stream the next element is usually read meanwhile, and a sleep and
  // wake-up per element (two futex calls and a context switch) cost as much
  // as a 64 KiB element's bytes.
  for (int spin = 0; spin < kReceiveYields && inbox_.empty() && !is_closed_.load(); ++spin) {
    lock.unlock();
    sched_yield();
    lock.lock();
  }
  std::optional<Result<ReceivedFrame>> taken;
  while (!(taken = TakeFromInbox())) {
    if (inbox_cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
      taken = TakeFromInbox();
      if (taken) break;
      return DeadlineExceededError("no frame from ", peer_.address, " within ", timeout.count(), " ms");
    }
  }
  SLUICE_RETURN_IF_ERROR(taken->status());
  out->push_back(**std::move(taken));
  // The frames behind it; a close after them is the next call's to report.
  for (size_t count = 1; count < max; ++count) {
    std::optional<Result<ReceivedFrame>> more = TakeFromInbox();
    if (!more || !more->ok()) break;
    out->push_back(**std::move(more));
  }
  return OkStatus();
}

}  // namespace sluice::service

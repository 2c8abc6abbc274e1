// Connection: one framed TCP connection of the data service (frames as in
// service/protocol.h), on Boost.Asio C++20 coroutines.
//
// - One writer: Asio allows one outstanding write per socket, so Send and
//   SendElement take turns; each write has a deadline (write_timeout), past
//   which the connection closes (a peer that stopped reading).
// - One reader: after Start(), a coroutine reads ahead into a receive
//   buffer and parses every frame it holds; a payload's rest, when large,
//   is read straight into the element's buffer. Credit frames feed the
//   sender's credit (service/credit.h); every other frame waits in an inbox
//   for Receive, which a read's frames enter together, with one wake-up of
//   a waiting receiver. Elements are bounded by the credit this end
//   granted; other frames by max_queued_frames, past which reading pauses
//   (the peer's writes then back up in TCP).
// - Element streams: SendElement waits for credit; the receiving side
//   grants a window with GrantCredit, and gives the credit of each element
//   its consumer takes back with ReturnCredit, which sends it in batches.
// - Close (from any thread) wakes every waiter: Receive, SendElement and
//   writes return its status.
// Frames before Start belong to the handshake (service/handshake.h), which
// reads them with ReadFrame under tighter limits. With TLS (service/tls.h),
// StartTls comes first and every frame after it travels inside TLS.
//
// Coroutine methods run on the connection's IoThread. The *Blocking methods
// are for other threads (a trainer's GetNext): they run the coroutine there
// and wait with a deadline, except ReceiveBlocking, which takes from the
// inbox on the caller's thread (no hop to the io thread per element). Stopping
// the IoThread closes the connection (Cancelled) and wakes them all.
// Thread safety: Close, closed(), counters() and the *Blocking methods from
// any thread; everything else on the io thread.
#pragma once

#include <utility>  // before Asio

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/core/buffer.h"
#include "sluice/core/status.h"
#include "sluice/service/async_signal.h"
#include "sluice/service/credit.h"
#include "sluice/service/element_codec.h"
#include "sluice/service/frame.h"
#include "sluice/service/io_thread.h"
#include "sluice/service/service.pb.h"
#include "sluice/service/tls.h"

namespace sluice::service {

struct ConnectionOptions {
  // Limits on the frames read after the handshake.
  FrameLimits limits;
  // How long a write may go without progress (the peer reading nothing);
  // past it the connection closes with DeadlineExceeded.
  std::chrono::milliseconds write_timeout = kDefaultWriteTimeout;
  // Frames other than elements that may wait for Receive before reading
  // pauses.
  size_t max_queued_frames = 256;
};

// A frame as received: the message, and the payload when it has one (an
// element's tensors; null otherwise).
struct ReceivedFrame {
  Frame frame;
  std::shared_ptr<Buffer> payload;
};

// Who is at the other end, from the handshake.
struct PeerInfo {
  uint32_t major = 0;
  uint32_t minor = 0;
  // The minor version both ends speak: the smaller of the two.
  uint32_t common_minor = 0;
  Role role = ROLE_UNSPECIFIED;
  std::string name;
  std::string address;  // "host:port" of the socket's remote end
};

// Counts since the connection opened, for tests and stats.
struct ConnectionCounters {
  uint64_t frames_sent = 0;
  uint64_t frames_received = 0;
  uint64_t elements_sent = 0;
  uint64_t elements_received = 0;
  uint64_t payload_bytes_sent = 0;      // wire bytes of element payloads
  uint64_t payload_bytes_received = 0;
  uint64_t credit_waits = 0;            // times SendElement waited for credit
  uint64_t writes = 0;                  // turns at the socket: each wrote one frame or several
};

// A frame to send: a control frame, or an element (header and payload).
using OutgoingFrame = std::variant<Frame, EncodedElement>;

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // A connection over a connected `socket` of `io`'s context.
  // REQUIRES: the connection does not outlive `io`.
  static std::shared_ptr<Connection> Make(IoThread& io, asio::ip::tcp::socket socket,
                                          ConnectionOptions options = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  IoThread& io() const { return *io_; }
  const ConnectionOptions& options() const { return options_; }
  const PeerInfo& peer() const { return peer_; }
  void set_peer(PeerInfo peer) { peer_ = std::move(peer); }

  // Runs the TLS handshake as `side` within `deadline`, before the service's
  // handshake; a client checks the server's certificate against `host`, the
  // name or address it dialled. A server that finds a plain frame where a
  // TLS hello belongs answers with a plain Error saying it requires TLS
  // (FailedPrecondition on both ends). On failure the connection is closed
  // with the same status.
  asio::awaitable<Status> StartTls(std::shared_ptr<asio::ssl::context> context, TlsSide side, std::string host,
                                   Clock::time_point deadline);
  // True once StartTls succeeded.
  bool tls() const { return tls_ != nullptr; }

  // Reads one frame directly, before Start, under `limits`; DeadlineExceeded
  // (and the connection closed) past `deadline`.
  asio::awaitable<Result<ReceivedFrame>> ReadFrame(FrameLimits limits, Clock::time_point deadline);
  // Starts the reader (once, after the handshake).
  void Start();

  // Writes `frame` (no payload); its status once written.
  asio::awaitable<Status> Send(Frame frame);
  // Waits until the peer's credit allows an element (DeadlineExceeded
  // after `credit_timeout`), spends it and writes the element's header (in
  // frame.element(), index fields set by the caller) and payload. An
  // end-of-stream header needs no credit; an element's error needs it as an
  // element does when the peer speaks 1.2 or later (ErrorsTakeCredit).

  asio::awaitable<Status> SendElement(EncodedElement element, std::chrono::milliseconds credit_timeout);
  // Writes `frames` in order, gathered into as few writes as it can (many
  // small frames cost one system call, not one each). Each element waits
  // for credit as SendElement does, for at most `credit_timeout` each; the
  // frames gathered before one that waits are written first. The first
  // failure ends it.
  asio::awaitable<Status> SendFrames(std::vector<OutgoingFrame> frames, std::chrono::milliseconds credit_timeout);
  // The next frame other than Credit: DeadlineExceeded at `deadline`; the
  // close status once closed (frames that arrived before a peer closed are
  // still returned first, unless this end closed it).
  asio::awaitable<Result<ReceivedFrame>> Receive(Clock::time_point deadline);
  // Grants the peer more credit (a Credit frame) for its element stream,
  // widening the window ReturnCredit refills.
  asio::awaitable<Status> GrantCredit(uint64_t bytes, uint64_t elements);
  // Whether elements' errors are charged against the credit both ways (both
  // ends speak 1.2 or later): else only elements are, and a peer that sends
  // errors endlessly fills its receiver's memory.
  bool ErrorsTakeCredit() const { return peer_.common_minor >= 2; }
  // Gives back the credit of elements (and, ErrorsTakeCredit, errors) the
  // consumer took (`bytes`: their DecodedBytes): it returns to the peer in batches, a Credit frame once
  // half the window waits (service/credit.h CreditReturns). Any thread;
  // never blocks.
  void ReturnCredit(uint64_t bytes, uint64_t elements);

  // Closes the socket and wakes every waiter with `reason` (Cancelled for
  // a local shutdown). The first reason wins. Any thread; returns at once.
  void Close(Status reason = CancelledError("the connection was closed"));
  // OK while open, else the close reason.
  Status closed() const;
  ConnectionCounters counters() const;
  // The credit this end may still spend on elements.
  const SenderCredit& sender_credit() const { return sender_credit_; }

  // The coroutines above, from a thread that is not the io thread: each
  // returns within `timeout` (DeadlineExceeded) or sooner.
  Status SendBlocking(Frame frame, std::chrono::milliseconds timeout);
  Status SendElementBlocking(EncodedElement element, std::chrono::milliseconds timeout);
  Result<ReceivedFrame> ReceiveBlocking(std::chrono::milliseconds timeout);
  // ReceiveBlocking's frame and the ones that arrived behind it, `max` at
  // most, appended to *out (one lock for many small frames); its error when
  // there is none.
  Status ReceiveSomeBlocking(std::chrono::milliseconds timeout, size_t max, std::vector<ReceivedFrame>* out);
  Status GrantCreditBlocking(uint64_t bytes, uint64_t elements, std::chrono::milliseconds timeout);

 private:
  struct PrivateKey {};

 public:
  Connection(PrivateKey, IoThread& io, asio::ip::tcp::socket socket, ConnectionOptions options);

 private:
  // The socket's reads and writes, through TLS once it is on. ReadSome
  // fills `into`'s two buffers in order (the second may be empty).
  asio::awaitable<size_t> ReadSome(std::array<asio::mutable_buffer, 2> into, boost::system::error_code& error);
  asio::awaitable<void> ReadExactly(asio::mutable_buffer into, boost::system::error_code& error);
  // Writes all of `buffers` (consumed as they are written), noting progress
  // for the write watchdog.
  asio::awaitable<void> WriteAll(std::vector<asio::const_buffer> buffers, boost::system::error_code& error);
  // Counts a read or write that completed at once in `streak`; every
  // kImmediateTurns of them in a row, yields to the io thread's other work.
  asio::awaitable<void> YieldAfterImmediate(int& streak);
  // Waits until the peer's credit allows an element: DeadlineExceeded at
  // `deadline`, the close status once closed.
  asio::awaitable<Status> AwaitCredit(Clock::time_point deadline);
  // Writes `buffers`, the heads (prefix and header) and payload pieces of
  // `frames` frames, in one turn at the socket.
  asio::awaitable<Status> Write(std::vector<asio::const_buffer> buffers, uint64_t frames);
  // Closes the connection when a write makes no progress for write_timeout.
  void ArmWriteWatchdog();
  asio::awaitable<void> ReadLoop();
  // The frame whose header `event` completes: parsed, checked (only an
  // element has a payload), its credit charged once started, its payload
  // buffer allocated.
  Result<ReceivedFrame> BeginFrame(const FrameEvent& event);
  void CountReceived(const ReceivedFrame& frame);
  // A frame has arrived whole: Credit feeds the sender, others go to batch_.
  void Complete(ReceivedFrame frame);
  // Feeds `data` to the parser: complete frames to Complete, a payload's
  // bytes into incoming_.
  Status Parse(std::span<const std::byte> data);
  // Moves batch_ into the inbox and wakes a waiting receiver; then, while
  // too many control frames wait, waits for room. False once closed.
  asio::awaitable<bool> Publish(bool wait_for_room);
  void SendReturnedCredit();
  void CloseOnIoThread(Status reason);
  // The status of a failed socket operation (`what`: "reading a frame
  // from", ...), or the close reason when the connection was closed under it.
  Status SocketError(const boost::system::error_code& error, std::string_view what) const;
  // Takes the next frame of the inbox, or says why not: nullopt when it is
  // empty and the connection open. REQUIRES: inbox_mu_ held.
  std::optional<Result<ReceivedFrame>> TakeFromInbox();
  size_t QueuedControlFrames() const { return inbox_.size() - inbox_elements_; }
  void OnIoThreadStopped();

  IoThread* io_;
  asio::ip::tcp::socket socket_;
  // TLS over socket_ (StartTls); null for plain TCP.
  struct TlsLayer;
  std::shared_ptr<asio::ssl::context> tls_context_;
  std::unique_ptr<TlsLayer> tls_;
  const ConnectionOptions options_;
  PeerInfo peer_;
  FrameParser parser_;
  bool started_ = false;
  // The reader's frames parsed and not yet in the inbox, and the element
  // whose payload is arriving (incoming_filled_ bytes of it so far).
  std::vector<ReceivedFrame> batch_;
  std::optional<ReceivedFrame> incoming_;
  uint64_t incoming_filled_ = 0;
  // The payload length of the last frame whose header was read: the size
  // of the next read depends on it.
  uint64_t last_payload_bytes_ = 0;

  // Reads and writes in a row that completed at once (YieldAfterImmediate).
  int read_streak_ = 0;
  int write_streak_ = 0;

  // Writer turn.
  bool writing_ = false;
  Clock::time_point last_write_progress_;
  AsyncSignal write_turn_;
  asio::steady_timer write_watchdog_;
  bool write_watchdog_armed_ = false;

  // Reader's inbox: filled on the io thread, taken by Receive there or by
  // ReceiveBlocking on the caller's thread (without a hop to the io thread).
  std::mutex inbox_mu_;
  std::condition_variable inbox_cv_;       // for ReceiveBlocking
  std::deque<ReceivedFrame> inbox_;         // GUARDED_BY(inbox_mu_)
  size_t inbox_elements_ = 0;               // GUARDED_BY(inbox_mu_)
  bool reader_waits_for_room_ = false;      // GUARDED_BY(inbox_mu_)
  AsyncSignal inbox_changed_;
  AsyncSignal inbox_room_;
  uint64_t stop_callback_ = 0;              // IoThread::OnStop's id

  SenderCredit sender_credit_;
  AsyncSignal credit_changed_;
  ReceiverCredit receiver_credit_;
  std::mutex returns_mu_;
  CreditReturns credit_returns_;  // GUARDED_BY(returns_mu_)

  // The close status: written once on the io thread, read from any thread.
  mutable std::mutex closed_mu_;
  Status closed_;  // GUARDED_BY(closed_mu_)
  std::atomic<bool> is_closed_{false};

  struct AtomicCounters {
    std::atomic<uint64_t> frames_sent{0}, frames_received{0}, elements_sent{0}, elements_received{0},
        payload_bytes_sent{0}, payload_bytes_received{0}, credit_waits{0}, writes{0};
  } counters_;
};

}  // namespace sluice::service

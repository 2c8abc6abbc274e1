// Connections, handshakes, servers and Connect over 127.0.0.1 (port 0).
#include "sluice/service/connection.h"

#include <gtest/gtest.h>

#include <boost/asio/read.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>

#include <atomic>
#include <cstring>
#include <future>
#include <thread>

#include "sluice/service/auth.h"
#include "sluice/service/connect.h"
#include "sluice/service/handshake.h"
#include "sluice/service/server.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLong{20000};  // bounds waits that should end much sooner

// Runs `make()`'s coroutine on `io`; its status comes through the future.
std::future<Status> Spawn(IoThread& io, std::function<asio::awaitable<Status>()> make) {
  return asio::co_spawn(io.context(), [make]() -> asio::awaitable<Status> { co_return co_await make(); },
                        asio::use_future);
}

// Two connected, not yet handshaken connections on `io`.
struct Pair {
  std::shared_ptr<Connection> client;
  std::shared_ptr<Connection> server;
};
Pair ConnectedPair(IoThread& io, ConnectionOptions options = {}) {
  asio::ip::tcp::acceptor acceptor(io.context(), {asio::ip::make_address("127.0.0.1"), 0});
  asio::ip::tcp::socket client(io.context());
  client.connect(acceptor.local_endpoint());
  asio::ip::tcp::socket server = acceptor.accept();
  return {Connection::Make(io, std::move(client), options), Connection::Make(io, std::move(server), options)};
}

// Handshakes both ends of `pair` and starts them; the two statuses.
std::pair<Status, Status> Handshake(IoThread& io, Pair& pair, HandshakeOptions client, HandshakeOptions server) {
  std::future<Status> server_done =
      Spawn(io, [c = pair.server, server] { return HandshakeAsServer(*c, server); });
  std::future<Status> client_done =
      Spawn(io, [c = pair.client, client] { return HandshakeAsClient(*c, client); });
  Status c = client_done.wait_for(kLong) == std::future_status::ready ? client_done.get()
                                                                       : DeadlineExceededError("test");
  Status s = server_done.wait_for(kLong) == std::future_status::ready ? server_done.get()
                                                                       : DeadlineExceededError("test");
  if (c.ok() && s.ok()) {
    // Started before the test goes on (and may drop the pair).
    auto started = std::make_shared<std::promise<void>>();
    asio::post(io.context(), [client = pair.client, server = pair.server, started] {
      client->Start();
      server->Start();
      started->set_value();
    });
    started->get_future().wait_for(kLong);
  }
  return {c, s};
}

// Waits (up to kLong) until `connection` holds credit for `elements`: a
// peer's grant returns once written, before this end has read it.
void AwaitSenderCredit(IoThread& io, Connection& connection, uint64_t elements) {
  const auto deadline = std::chrono::steady_clock::now() + kLong;
  for (;;) {
    Result<uint64_t> held = io.RunBlocking<uint64_t>(
        [&]() -> asio::awaitable<Result<uint64_t>> { co_return connection.sender_credit().elements(); }, kLong);
    ASSERT_TRUE(held.ok()) << held.status();
    if (*held >= elements) return;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the grant of " << elements << " elements never came";
    std::this_thread::sleep_for(milliseconds(1));
  }
}

Frame ErrorFrame(const std::string& message) {
  Frame frame;
  frame.mutable_error()->set_message(message);
  return frame;
}

EncodedElement Encoded(const Element& element, uint64_t index) {
  EncodedElement encoded = *EncodeElement(element);
  encoded.header.set_index(index);
  return encoded;
}

TEST(ConnectionTest, HandshakeThenFramesAndElementsBothWays) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  auto [c, s] = Handshake(io, pair, {.role = ROLE_CLIENT, .name = "trainer"}, {.role = ROLE_WORKER, .name = "w0"});
  ASSERT_TRUE(c.ok()) << c;
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(pair.server->peer().name, "trainer");
  EXPECT_EQ(pair.server->peer().role, ROLE_CLIENT);
  EXPECT_EQ(pair.client->peer().name, "w0");

  ASSERT_TRUE(pair.client->SendBlocking(ErrorFrame("hello"), kLong).ok());
  Result<ReceivedFrame> got = pair.server->ReceiveBlocking(kLong);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->frame.error().message(), "hello");
  EXPECT_EQ(got->payload, nullptr);

  ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, 4, kLong).ok());
  const Element element{Tensor::FromVector<float>({1, 2, 3}), Tensor::Scalar("record")};
  ASSERT_TRUE(pair.server->SendElementBlocking(Encoded(element, 0), kLong).ok());
  EncodedElement end;
  end.header = EndOfStreamHeader(1);
  ASSERT_TRUE(pair.server->SendElementBlocking(std::move(end), kLong).ok());
  got = pair.client->ReceiveBlocking(kLong);
  ASSERT_TRUE(got.ok()) << got.status();
  Result<Element> decoded = DecodeElement(got->frame.element(), got->payload);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(decoded->Equals(element));
  got = pair.client->ReceiveBlocking(kLong);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->frame.element().end_of_stream());
  pair.client->Close();
  pair.server->Close();
}

TEST(ConnectionTest, MajorVersionMismatchFailsNamingBothVersions) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  auto [c, s] = Handshake(io, pair, {.role = ROLE_CLIENT, .major = 2, .minor = 1}, {.role = ROLE_WORKER});
  EXPECT_EQ(c.code(), StatusCode::kFailedPrecondition) << c;
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s;
  for (const Status& status : {c, s}) {
    EXPECT_NE(status.message().find("2.1"), std::string::npos) << status;
    EXPECT_NE(status.message().find(StrCat(kServiceProtocolMajor, ".", kServiceProtocolMinor)), std::string::npos)
        << status;
  }
}

TEST(ConnectionTest, OlderAndNewerMinorsWork) {
  for (uint32_t client_minor : {kServiceProtocolMinor, kServiceProtocolMinor + 1}) {
    IoThread io;
    Pair pair = ConnectedPair(io);
    auto [c, s] = Handshake(io, pair, {.role = ROLE_CLIENT, .minor = client_minor},
                            {.role = ROLE_WORKER, .minor = kServiceProtocolMinor + 3});
    EXPECT_TRUE(c.ok()) << c;
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_EQ(pair.server->peer().minor, client_minor);
    EXPECT_EQ(pair.client->peer().minor, kServiceProtocolMinor + 3);
  }
}

TEST(ConnectionTest, TokenAcceptedWhenBothHoldIt) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  auto [c, s] = Handshake(io, pair, {.role = ROLE_CLIENT, .token = "secret"}, {.role = ROLE_WORKER, .token = "secret"});
  EXPECT_TRUE(c.ok()) << c;
  EXPECT_TRUE(s.ok()) << s;
}

TEST(ConnectionTest, MissingTokenIsUnauthenticated) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  auto [c, s] = Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER, .token = "secret"});
  EXPECT_EQ(c.code(), StatusCode::kUnauthenticated) << c;
  EXPECT_NE(c.message().find("requires a token"), std::string::npos) << c;
  EXPECT_FALSE(s.ok());
}

TEST(ConnectionTest, SilentPeerHitsTheHandshakeDeadline) {
  IoThread io;
  Pair pair = ConnectedPair(io);  // nobody answers at the server end
  std::future<Status> done = Spawn(io, [c = pair.client] {
    return HandshakeAsClient(*c, {.role = ROLE_CLIENT, .timeout = milliseconds(200)});
  });
  ASSERT_EQ(done.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(done.get().code(), StatusCode::kDeadlineExceeded);
}

TEST(ConnectionTest, SilentPeerHitsTheReceiveDeadline) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  Result<ReceivedFrame> got = pair.client->ReceiveBlocking(milliseconds(100));
  EXPECT_EQ(got.status().code(), StatusCode::kDeadlineExceeded) << got.status();
  // The connection is still usable.
  ASSERT_TRUE(pair.server->SendBlocking(ErrorFrame("late"), kLong).ok());
  EXPECT_TRUE(pair.client->ReceiveBlocking(kLong).ok());
}

// The client end of a connection as raw blocking socket calls from the test
// thread: for peers that break the protocol.
class RawClient {
 public:
  explicit RawClient(IoThread& io, std::shared_ptr<Connection>* server, std::optional<std::string> token = {})
      : socket_(io.context()) {
    asio::ip::tcp::acceptor acceptor(io.context(), {asio::ip::make_address("127.0.0.1"), 0});
    socket_.connect(acceptor.local_endpoint());
    *server = Connection::Make(io, acceptor.accept());
    server_done_ = Spawn(io, [c = *server, token]() -> asio::awaitable<Status> {
      HandshakeOptions options{.role = ROLE_WORKER, .token = token};
      Status s = co_await HandshakeAsServer(*c, std::move(options));
      if (s.ok()) c->Start();
      co_return s;
    });
  }
  void Write(const std::string& bytes) { asio::write(socket_, asio::buffer(bytes)); }
  void Write(const Frame& frame) { Write(*EncodeFrameHead(frame, 0)); }
  Frame Read() {
    FrameParser parser;
    std::string bytes;
    while (true) {
      bytes.resize(parser.bytes_wanted());
      asio::read(socket_, asio::buffer(bytes));
      size_t consumed = 0;
      FrameEvent event = *parser.Next(std::as_bytes(std::span(bytes)), &consumed);
      if (event.kind == FrameEvent::Kind::kHeader) {
        Frame frame;
        frame.ParseFromArray(event.header.data(), static_cast<int>(event.header.size()));
        return frame;
      }
    }
  }
  // Hello, Challenge, AuthProof (under `token`, or empty), then the
  // server's verdict.
  Frame Handshake(const std::optional<std::string>& token, const std::string& after_proof = "") {
    Frame hello;
    hello.mutable_hello()->set_major(kServiceProtocolMajor);
    hello.mutable_hello()->set_minor(kServiceProtocolMinor);
    hello.mutable_hello()->set_role(ROLE_CLIENT);
    Write(hello);
    const Frame challenge = Read();
    Frame proof;
    proof.mutable_auth_proof()->set_hmac(token ? ComputeAuthProof(*token, challenge.challenge().nonce(),
                                                                  kServiceProtocolMajor, kServiceProtocolMinor,
                                                                  ROLE_CLIENT)
                                               : "");
    Write(*EncodeFrameHead(proof, 0) + after_proof);
    return Read();
  }
  Status ServerHandshake() {
    return server_done_.wait_for(kLong) == std::future_status::ready ? server_done_.get()
                                                                     : DeadlineExceededError("test");
  }

 private:
  asio::ip::tcp::socket socket_;
  std::future<Status> server_done_;
};

// A client with the wrong token sends its proof and, right behind it, a
// frame the server must never read: the server refuses after exactly two
// frames (Hello, AuthProof).
TEST(ConnectionTest, WrongTokenIsRefusedBeforeAnythingElseIsRead) {
  IoThread io;
  std::shared_ptr<Connection> server;
  RawClient client(io, &server, "right");
  const Frame verdict = client.Handshake("wrong", *EncodeFrameHead(ErrorFrame("a spec never parsed"), 0));
  ASSERT_TRUE(verdict.has_error());
  EXPECT_EQ(static_cast<StatusCode>(verdict.error().code()), StatusCode::kUnauthenticated);
  EXPECT_EQ(client.ServerHandshake().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(server->counters().frames_received, 2u);
  EXPECT_EQ(server->closed().code(), StatusCode::kUnauthenticated);
}

TEST(ConnectionTest, MalformedFramesCloseTheConnectionWithAClearError) {
  struct Case {
    std::string name;
    std::string bytes;
    StatusCode code;
  };
  auto prefix = [](uint32_t magic, uint32_t header, uint64_t payload) {
    std::string p(kFramePrefixBytes, '\0');
    std::memcpy(p.data(), &magic, 4);
    std::memcpy(p.data() + 4, &header, 4);
    std::memcpy(p.data() + 8, &payload, 8);
    return p;
  };
  Frame credit;
  credit.mutable_credit()->set_bytes(1);
  Frame element;
  element.mutable_element()->set_index(0);
  const std::vector<Case> cases = {
      {"wrong magic", "HTTP/1.1 200 OK\r\n\r\n", StatusCode::kDataLoss},
      {"oversized header", prefix(kFrameMagic, kMaxControlFrameBytes + 1, 0), StatusCode::kResourceExhausted},
      {"oversized payload", prefix(kFrameMagic, 4, kDefaultMaxPayloadBytes + 1), StatusCode::kResourceExhausted},
      {"garbage header", prefix(kFrameMagic, 4, 0) + "\xff\xff\xff\xff", StatusCode::kDataLoss},
      {"payload on a control frame", *EncodeFrameHead(credit, 3) + "abc", StatusCode::kDataLoss},
      {"element without credit", *EncodeFrameHead(element, 8) + "12345678", StatusCode::kDataLoss},
  };
  for (const Case& test : cases) {
    SCOPED_TRACE(test.name);
    IoThread io;
    std::shared_ptr<Connection> server;
    RawClient client(io, &server);
    ASSERT_TRUE(client.Handshake(std::nullopt).has_welcome());
    ASSERT_TRUE(client.ServerHandshake().ok());
    client.Write(test.bytes);
    Result<ReceivedFrame> got = server->ReceiveBlocking(kLong);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), test.code) << got.status();
    EXPECT_EQ(server->closed().code(), test.code);
  }
}

TEST(ConnectionTest, HandshakeRefusesAFrameOtherThanHello) {
  IoThread io;
  std::shared_ptr<Connection> server;
  RawClient client(io, &server);
  client.Write(ErrorFrame("not a hello"));
  EXPECT_TRUE(client.Read().has_error());
  EXPECT_EQ(client.ServerHandshake().code(), StatusCode::kDataLoss);
}

// A consumer that takes nothing holds the sender at its credit: the bytes
// in flight stay within the grant plus one element.
TEST(ConnectionTest, SlowConsumerHoldsTheSenderAtItsCredit) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  constexpr uint64_t kElementBytes = 256 << 10;
  constexpr uint64_t kGrantBytes = 1 << 20;
  constexpr int kElements = 40;
  ASSERT_TRUE(pair.client->GrantCreditBlocking(kGrantBytes, 100, kLong).ok());
  std::thread sender([&] {
    const Element element{Tensor::Allocate(DType::kUInt8, Shape{static_cast<int64_t>(kElementBytes)})};
    for (int i = 0; i < kElements; ++i) {
      ASSERT_TRUE(pair.server->SendElementBlocking(Encoded(element, i), kLong).ok());
    }
  });
  // Bounded wait until the sender has spent its credit, then a pause in
  // which it must not send more.
  const uint64_t allowed = kGrantBytes / kElementBytes;
  for (int i = 0; i < 2000 && pair.server->counters().elements_sent < allowed; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  std::this_thread::sleep_for(milliseconds(100));
  const ConnectionCounters held = pair.server->counters();
  EXPECT_EQ(held.elements_sent, allowed);
  EXPECT_LE(held.payload_bytes_sent, kGrantBytes + kElementBytes);
  EXPECT_GE(held.credit_waits, 1u);
  // Consume: each element taken returns its credit, and all arrive.
  for (int i = 0; i < kElements; ++i) {
    Result<ReceivedFrame> got = pair.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->frame.element().index(), static_cast<uint64_t>(i));
    ASSERT_TRUE(pair.client->GrantCreditBlocking(kElementBytes, 1, kLong).ok());
    // Signed: the sender counts an element once its write returns, which
    // may be after the receiver has counted it.
    const int64_t received = static_cast<int64_t>(pair.client->counters().payload_bytes_received);
    const int64_t in_flight = static_cast<int64_t>(pair.server->counters().payload_bytes_sent) - received;
    EXPECT_LE(in_flight, static_cast<int64_t>(kGrantBytes + kElementBytes));
  }
  sender.join();
  EXPECT_EQ(pair.client->counters().elements_received, static_cast<uint64_t>(kElements));
}

// Elements of every size around the receive path's thresholds, back to back:
// small ones share reads, large ones are read straight into their buffers.
TEST(ConnectionTest, ElementsOfMixedSizesArriveIntact) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  const std::vector<int64_t> sizes = {0, 1, 100, (16 << 10) - 1, 16 << 10, (16 << 10) + 1, 64 << 10, 200000,
                                      1 << 20, 3, (64 << 10) + 17, 5};
  ASSERT_TRUE(pair.client->GrantCreditBlocking(64 << 20, sizes.size(), kLong).ok());
  std::vector<Element> elements;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Tensor tensor = Tensor::AllocateUninitialized(DType::kUInt8, Shape{sizes[i]});
    for (int64_t j = 0; j < sizes[i]; ++j) tensor.mutable_data<uint8_t>()[j] = static_cast<uint8_t>(j * 7 + i);
    elements.push_back(Element{tensor, Tensor::Scalar<int64_t>(sizes[i])});
  }
  std::future<Status> sent = std::async(std::launch::async, [&] {
    for (size_t i = 0; i < elements.size(); ++i) {
      if (Status s = pair.server->SendElementBlocking(Encoded(elements[i], i), kLong); !s.ok()) return s;
    }
    return OkStatus();
  });
  for (size_t i = 0; i < elements.size(); ++i) {
    Result<ReceivedFrame> got = pair.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->frame.element().index(), i);
    Result<Element> decoded = DecodeElement(got->frame.element(), got->payload);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(decoded->Equals(elements[i])) << "element " << i << " of " << sizes[i] << " bytes";
  }
  ASSERT_EQ(sent.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(sent.get().ok());
}

// Frames sent together go in one write while there is credit; an element
// without credit waits, after the frames before it are written, and the
// rest follow in order once credit comes. The receiver takes what arrived
// several frames at a time.
TEST(ConnectionTest, FramesSentTogetherShareWritesAndWaitForCreditInOrder) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, 3, kLong).ok());
  AwaitSenderCredit(io, *pair.server, 3);  // so that element 3 is the only one to wait
  // Elements 0..4 with control frames (Error frames naming 100, 101)
  // after the first and the last.
  auto note = [](int value) {
    Frame frame;
    frame.mutable_error()->set_message(std::to_string(value));
    return frame;
  };
  std::vector<OutgoingFrame> frames;
  frames.emplace_back(Encoded(Element{Tensor::Scalar<int32_t>(0)}, 0));
  frames.emplace_back(note(100));
  for (int i = 1; i < 5; ++i) frames.emplace_back(Encoded(Element{Tensor::Scalar<int32_t>(i)}, i));
  frames.emplace_back(note(101));
  const uint64_t writes_before = pair.server->counters().writes;
  std::future<Status> sent = std::async(std::launch::async, [&] {
    return io.RunBlocking([&] { return pair.server->SendFrames(std::move(frames), kLong); }, kLong);
  });
  // What a frame names: its element's index, or its note's number.
  auto name = [](const ReceivedFrame& frame) {
    return frame.frame.has_error() ? std::stoi(frame.frame.error().message())
                                   : static_cast<int>(frame.frame.element().index());
  };
  std::vector<int> received;
  std::vector<ReceivedFrame> got;
  while (received.size() < 4) {  // the credit's 3 elements and the note among them
    got.clear();
    Status status = pair.client->ReceiveSomeBlocking(kLong, 2, &got);
    ASSERT_TRUE(status.ok()) << status;
    ASSERT_GE(got.size(), 1u);
    ASSERT_LE(got.size(), 2u);
    for (const ReceivedFrame& frame : got) received.push_back(name(frame));
  }
  EXPECT_EQ(received, (std::vector<int>{0, 100, 1, 2}));
  got.clear();
  const Status nothing = pair.client->ReceiveSomeBlocking(milliseconds(100), 8, &got);
  EXPECT_EQ(nothing.code(), StatusCode::kDeadlineExceeded) << "element 3 waits for credit";
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(pair.server->counters().writes - writes_before, 1u) << "the four frames with credit, one write";
  EXPECT_EQ(pair.server->counters().credit_waits, 1u);
  ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, 2, kLong).ok());
  while (received.size() < 7) {
    got.clear();
    Status status = pair.client->ReceiveSomeBlocking(kLong, 8, &got);
    ASSERT_TRUE(status.ok()) << status;
    for (const ReceivedFrame& frame : got) received.push_back(name(frame));
  }
  EXPECT_EQ(received, (std::vector<int>{0, 100, 1, 2, 3, 4, 101}));
  ASSERT_EQ(sent.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(sent.get().ok());
  EXPECT_EQ(pair.server->counters().elements_sent, 5u);
}

// Each element of frames sent together waits for its own credit: a slow
// consumer that grants one element at a time, each well within the
// timeout, receives them all though together they take longer.
TEST(ConnectionTest, EachElementSentTogetherWaitsForItsCreditAlone) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  constexpr int kElements = 4;
  constexpr milliseconds kCreditTimeout{3000};
  constexpr milliseconds kBetweenGrants{800};  // all four take 3.2 s
  std::vector<OutgoingFrame> frames;
  for (int i = 0; i < kElements; ++i) frames.emplace_back(Encoded(Element{Tensor::Scalar<int32_t>(i)}, i));
  std::future<Status> sent = std::async(std::launch::async, [&] {
    return io.RunBlocking([&] { return pair.server->SendFrames(std::move(frames), kCreditTimeout); }, kLong);
  });
  for (int i = 0; i < kElements; ++i) {
    std::this_thread::sleep_for(kBetweenGrants);
    ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, 1, kLong).ok());
    Result<ReceivedFrame> got = pair.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->frame.element().index(), static_cast<uint64_t>(i));
  }
  ASSERT_EQ(sent.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(sent.get().ok());
}

// An element's error takes credit as an element does where both peers speak
// 1.2 or later, so a worker that sends errors endlessly waits on its consumer
// as one sending elements would; a 1.1 peer sends them without credit, and
// its receiver charges none.
TEST(ConnectionTest, ElementErrorsTakeCreditWhereBothPeersSpeak12) {
  for (const uint32_t client_minor : {kServiceProtocolMinor, uint32_t{1}}) {
    SCOPED_TRACE(StrCat("client minor ", client_minor));
    IoThread io;
    Pair pair = ConnectedPair(io);
    ASSERT_TRUE(
        Handshake(io, pair, {.role = ROLE_CLIENT, .minor = client_minor}, {.role = ROLE_WORKER}).first.ok());
    const bool charged = client_minor >= 2;
    EXPECT_EQ(pair.server->ErrorsTakeCredit(), charged);
    EXPECT_EQ(pair.client->ErrorsTakeCredit(), charged);
    ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, 2, kLong).ok());
    AwaitSenderCredit(io, *pair.server, 2);
    std::vector<OutgoingFrame> frames;
    for (int i = 0; i < 5; ++i) {
      Frame frame;
      frame.mutable_element_error()->set_index_in_split(static_cast<uint64_t>(i));
      frame.mutable_element_error()->set_message("bad record");
      frames.emplace_back(std::move(frame));
    }
    const Status sent = io.RunBlocking(
        [&] { return pair.server->SendFrames(std::move(frames), milliseconds(300)); }, kLong);
    if (charged) {
      EXPECT_EQ(sent.code(), StatusCode::kDeadlineExceeded) << "two errors go on two elements' credit: " << sent;
    } else {
      EXPECT_TRUE(sent.ok()) << sent;
    }
    const int arrive = charged ? 2 : 5;
    for (int i = 0; i < arrive; ++i) {
      Result<ReceivedFrame> got = pair.client->ReceiveBlocking(kLong);
      ASSERT_TRUE(got.ok()) << got.status();
      EXPECT_EQ(got->frame.element_error().index_in_split(), static_cast<uint64_t>(i));
    }
    if (charged) {
      // The errors' credit returns as they are taken, as elements' does.
      pair.client->ReturnCredit(20, 2);
      AwaitSenderCredit(io, *pair.server, 1);
    }
  }
}

// A consumer that returns each element's credit keeps the stream going with
// one Credit frame per half window, not one per element.
TEST(ConnectionTest, ReturnedCreditGoesBackInBatches) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  constexpr uint64_t kWindow = 8;
  constexpr int kElements = 64;
  ASSERT_TRUE(pair.client->GrantCreditBlocking(1 << 20, kWindow, kLong).ok());
  const uint64_t frames_before = pair.client->counters().frames_sent;
  std::future<Status> sent = std::async(std::launch::async, [&] {
    for (int i = 0; i < kElements; ++i) {
      Status s = pair.server->SendElementBlocking(Encoded(Element{Tensor::Scalar<int32_t>(i)}, i), kLong);
      if (!s.ok()) return s;
    }
    return OkStatus();
  });
  for (int i = 0; i < kElements; ++i) {
    Result<ReceivedFrame> got = pair.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->frame.element().index(), static_cast<uint64_t>(i));
    pair.client->ReturnCredit(DecodedBytes(got->frame.element(), got->payload->size()), 1);
  }
  ASSERT_EQ(sent.wait_for(kLong), std::future_status::ready);
  EXPECT_TRUE(sent.get().ok());
  // At most one Credit frame per half window of elements taken.
  EXPECT_LE(pair.client->counters().frames_sent - frames_before, kElements / (kWindow / 2));
}

TEST(ConnectionTest, CloseFromAnotherThreadWakesABlockedReceive) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  std::promise<void> started;
  std::future<Result<ReceivedFrame>> receive = std::async(std::launch::async, [&] {
    started.set_value();
    return pair.client->ReceiveBlocking(milliseconds(60000));
  });
  started.get_future().wait();
  std::this_thread::sleep_for(milliseconds(20));
  pair.client->Close();
  // Far sooner than the receive's 60 s deadline.
  ASSERT_EQ(receive.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(receive.get().status().code(), StatusCode::kCancelled);
  // The peer sees the connection end.
  EXPECT_EQ(pair.server->ReceiveBlocking(kLong).status().code(), StatusCode::kUnavailable);
}

TEST(ConnectionTest, CloseWakesASenderWaitingForCredit) {
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  std::future<Status> send = std::async(std::launch::async, [&] {
    return pair.server->SendElementBlocking(Encoded(Element{Tensor::Scalar<int32_t>(1)}, 0), milliseconds(60000));
  });
  for (int i = 0; i < 2000 && pair.server->counters().credit_waits == 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  pair.server->Close();
  ASSERT_EQ(send.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(send.get().code(), StatusCode::kCancelled);
}

TEST(ConnectionTest, StoppingTheIoThreadWakesBlockedCallers) {
  auto io = std::make_unique<IoThread>();
  Pair pair = ConnectedPair(*io);
  ASSERT_TRUE(Handshake(*io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  std::future<Result<ReceivedFrame>> receive =
      std::async(std::launch::async, [&] { return pair.client->ReceiveBlocking(milliseconds(60000)); });
  std::this_thread::sleep_for(milliseconds(20));
  io->Stop();
  ASSERT_EQ(receive.wait_for(kLong), std::future_status::ready);
  EXPECT_EQ(receive.get().status().code(), StatusCode::kCancelled);
  EXPECT_EQ(pair.client->ReceiveBlocking(kLong).status().code(), StatusCode::kCancelled);
  pair = {};
}

// An element just over 2 GiB, over loopback: only where memory allows it
// comfortably (sender and receiver hold a copy each) and not under the
// sanitizers, whose shadow memory would double it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
TEST(ConnectionTest, ElementPast2GiBRoundTrips) {
  const int64_t bytes = (int64_t{2} << 30) + 4096 + 7;
  if (kSanitized || HostMemoryBytes() < int64_t{16} << 30) {
    GTEST_SKIP() << "needs 16 GiB of memory and a build without sanitizers";
  }
  IoThread io;
  Pair pair = ConnectedPair(io);
  ASSERT_TRUE(Handshake(io, pair, {.role = ROLE_CLIENT}, {.role = ROLE_WORKER}).first.ok());
  ASSERT_TRUE(pair.client->GrantCreditBlocking(1, 1, kLong).ok());
  Tensor tensor = Tensor::AllocateUninitialized(DType::kUInt8, Shape{bytes});
  uint8_t* data = tensor.mutable_data<uint8_t>();
  for (int64_t i = 0; i < bytes; i += 4096) data[i] = static_cast<uint8_t>(i / 4096);
  data[bytes - 1] = 0xab;
  std::future<Status> send = std::async(std::launch::async, [&] {
    return pair.server->SendElementBlocking(Encoded(Element{tensor}, 0), milliseconds(120000));
  });
  Result<ReceivedFrame> got = pair.client->ReceiveBlocking(milliseconds(120000));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(send.get().ok());
  Element element = *DecodeElement(got->frame.element(), got->payload);
  ASSERT_EQ(element[0].NumElements(), bytes);
  const uint8_t* received = element[0].data<uint8_t>();
  for (int64_t i = 0; i < bytes; i += 4096) ASSERT_EQ(received[i], static_cast<uint8_t>(i / 4096)) << i;
  EXPECT_EQ(received[bytes - 1], 0xab);
}

// Servers and Connect.

TEST(ServerTest, ServesHandlersAndStopsPromptlyWithPeersMidWait) {
  std::atomic<int> handled{0};
  auto server = Server::Start({.role = ROLE_WORKER, .name = "echo"},
                              [&](std::shared_ptr<Connection> c) -> asio::awaitable<void> {
                                ++handled;
                                while (true) {
                                  Result<ReceivedFrame> got = co_await c->Receive(Clock::time_point::max());
                                  if (!got.ok()) co_return;
                                  if (!(co_await c->Send(got->frame)).ok()) co_return;
                                }
                              });
  ASSERT_TRUE(server.ok()) << server.status();
  IoThread io;
  Result<std::shared_ptr<Connection>> client = Connect(io, (*server)->address(), {.name = "test"});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_EQ((*client)->peer().name, "echo");
  ASSERT_TRUE((*client)->SendBlocking(ErrorFrame("ping"), kLong).ok());
  Result<ReceivedFrame> echo = (*client)->ReceiveBlocking(kLong);
  ASSERT_TRUE(echo.ok()) << echo.status();
  EXPECT_EQ(echo->frame.error().message(), "ping");
  EXPECT_EQ(handled.load(), 1);
  EXPECT_EQ((*server)->accepted(), 1u);
  // The handler waits in Receive with no deadline: Stop still ends it.
  (*server)->Stop();
  EXPECT_EQ((*client)->ReceiveBlocking(kLong).status().code(), StatusCode::kUnavailable);
  (*client)->Close();
}

TEST(ServerTest, RefusesNonLoopbackWithoutAToken) {
  auto server = Server::Start({.host = "0.0.0.0"}, [](std::shared_ptr<Connection>) -> asio::awaitable<void> {
    co_return;
  });
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(server.status().message().find("needs a token"), std::string::npos) << server.status();
}

TEST(ServerTest, WrongTokenNeverReachesTheHandler) {
  std::atomic<int> handled{0};
  auto server = Server::Start({.token = "right"}, [&](std::shared_ptr<Connection>) -> asio::awaitable<void> {
    ++handled;
    co_return;
  });
  ASSERT_TRUE(server.ok());
  IoThread io;
  Result<std::shared_ptr<Connection>> client = Connect(io, (*server)->address(), {.token = "wrong"});
  EXPECT_EQ(client.status().code(), StatusCode::kUnauthenticated) << client.status();
  Result<std::shared_ptr<Connection>> none = Connect(io, (*server)->address(), {});
  EXPECT_EQ(none.status().code(), StatusCode::kUnauthenticated) << none.status();
  Result<std::shared_ptr<Connection>> right = Connect(io, (*server)->address(), {.token = "right"});
  EXPECT_TRUE(right.ok()) << right.status();
  // The server counts a refusal after its answer has gone, and runs the
  // handler after its side of the handshake, which may be after the client's.
  for (int i = 0; i < 2000 && ((*server)->refused() < 2 || handled.load() < 1); ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  (*server)->Stop();
  EXPECT_EQ(handled.load(), 1);
  EXPECT_EQ((*server)->refused(), 2u);
}

TEST(ConnectTest, NothingListeningIsUnavailable) {
  IoThread io;
  asio::ip::tcp::acceptor acceptor(io.context(), {asio::ip::make_address("127.0.0.1"), 0});
  const uint16_t port = acceptor.local_endpoint().port();
  acceptor.close();
  Result<std::shared_ptr<Connection>> client = Connect(io, StrCat("127.0.0.1:", port), {});
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable) << client.status();
  EXPECT_EQ(Connect(io, "no-port", {}).status().code(), StatusCode::kInvalidArgument);
}

TEST(ConnectTest, SilentServerHitsTheTimeout) {
  IoThread io;
  // Accepted by the kernel's backlog, never answered.
  asio::ip::tcp::acceptor acceptor(io.context(), {asio::ip::make_address("127.0.0.1"), 0});
  Result<std::shared_ptr<Connection>> client =
      Connect(io, StrCat("127.0.0.1:", acceptor.local_endpoint().port()), {.timeout = milliseconds(200)});
  EXPECT_EQ(client.status().code(), StatusCode::kDeadlineExceeded) << client.status();
}

}  // namespace
}  // namespace sluice::service

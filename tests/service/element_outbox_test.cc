// ElementOutbox over a loopback connection: frames and elements arrive in
// the order sent, what waits goes in one write, a send waits for room, and
// a closed connection ends every wait with its status.
#include "sluice/service/element_outbox.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "sluice/service/connect.h"
#include "sluice/service/server.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLong{20000};  // bounds waits that should end much sooner

// A server whose connection from one client is handed to the test (held
// open until the client leaves), and that client.
struct Link {
  explicit Link(uint64_t credit_elements) {
    std::future<std::shared_ptr<Connection>> accepted = accepted_promise.get_future();
    Result<std::unique_ptr<Server>> started =
        Server::Start({.role = ROLE_WORKER}, [this](std::shared_ptr<Connection> connection) -> asio::awaitable<void> {
          accepted_promise.set_value(connection);
          (void)co_await connection->Receive(DeadlineAfter(kLong));
        });
    EXPECT_TRUE(started.ok()) << started.status();
    server = *std::move(started);
    Result<std::shared_ptr<Connection>> connected = Connect(io, server->address(), {});
    EXPECT_TRUE(connected.ok()) << connected.status();
    client = *connected;
    if (credit_elements > 0) {
      EXPECT_TRUE(client->GrantCreditBlocking(1 << 20, credit_elements, kLong).ok());
    }
    EXPECT_EQ(accepted.wait_for(kLong), std::future_status::ready);
    sender = accepted.get();
  }
  ~Link() {
    client->Close();
    server->Stop();
  }
  std::promise<std::shared_ptr<Connection>> accepted_promise;
  std::unique_ptr<Server> server;
  IoThread io{"test-client"};
  std::shared_ptr<Connection> client;
  std::shared_ptr<Connection> sender;  // the server's end
};

EncodedElement Encoded(int32_t value) {
  EncodedElement encoded = *EncodeElement(Element{Tensor::Scalar<int32_t>(value)});
  encoded.header.set_index(static_cast<uint64_t>(value));
  return encoded;
}

Frame Note(int32_t value) {
  Frame frame;
  frame.mutable_error()->set_message(std::to_string(value));
  return frame;
}

TEST(ElementOutboxTest, FramesAndElementsArriveInTheOrderSent) {
  Link link(/*credit_elements=*/4);  // little credit: elements wait for it between frames
  constexpr int32_t kCount = 300;
  std::thread sending([&] {
    ElementOutbox outbox(link.sender, /*depth=*/3);
    for (int32_t i = 0; i < kCount; ++i) {
      const Status s = i % 3 == 0 ? outbox.Send(Note(i), kLong) : outbox.SendElement(Encoded(i), kLong);
      ASSERT_TRUE(s.ok()) << s;
    }
    EXPECT_TRUE(outbox.Flush(kLong).ok());
  });
  std::vector<int32_t> received;
  while (received.size() < static_cast<size_t>(kCount)) {
    Result<ReceivedFrame> got = link.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    if (got->frame.has_error()) {
      received.push_back(std::stoi(got->frame.error().message()));
      continue;
    }
    Result<Element> element = DecodeElement(got->frame.element(), got->payload);
    ASSERT_TRUE(element.ok()) << element.status();
    received.push_back((*element)[0].scalar<int32_t>());
    link.client->ReturnCredit(DecodedBytes(got->frame.element(), got->payload ? got->payload->size() : 0), 1);
  }
  sending.join();
  std::vector<int32_t> expected(kCount);
  for (int32_t i = 0; i < kCount; ++i) expected[static_cast<size_t>(i)] = i;
  EXPECT_EQ(received, expected);
}

TEST(ElementOutboxTest, FramesSentTogetherGoInOneWrite) {
  Link link(/*credit_elements=*/64);
  ElementOutbox outbox(link.sender, /*depth=*/16);
  Result<size_t> room = outbox.AwaitRoom(kLong);
  ASSERT_TRUE(room.ok()) << room.status();
  EXPECT_EQ(*room, 16u) << "an empty outbox has room for its depth";
  std::vector<OutgoingFrame> frames;
  for (int32_t i = 0; i < 10; ++i) {
    if (i == 4) frames.emplace_back(Note(i));
    else frames.emplace_back(Encoded(i));
  }
  const uint64_t writes_before = link.sender->counters().writes;
  ASSERT_TRUE(outbox.SendFrames(std::move(frames), kLong).ok());
  ASSERT_TRUE(outbox.Flush(kLong).ok());
  EXPECT_EQ(link.sender->counters().writes - writes_before, 1u) << "ten frames queued at once, one write";
  std::vector<int32_t> received;
  while (received.size() < 10) {
    Result<ReceivedFrame> got = link.client->ReceiveBlocking(kLong);
    ASSERT_TRUE(got.ok()) << got.status();
    if (got->frame.has_error()) {
      received.push_back(std::stoi(got->frame.error().message()));
    } else {
      received.push_back((*DecodeElement(got->frame.element(), got->payload))[0].scalar<int32_t>());
    }
  }
  EXPECT_EQ(received, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(ElementOutboxTest, AwaitRoomSaysHowManyFitAndWaitsWhenFull) {
  Link link(/*credit_elements=*/0);  // no credit: elements stay queued
  ElementOutbox outbox(link.sender, /*depth=*/4);
  ASSERT_TRUE(outbox.SendElement(Encoded(0), kLong).ok());
  Result<size_t> room = outbox.AwaitRoom(kLong);
  ASSERT_TRUE(room.ok()) << room.status();
  EXPECT_EQ(*room, 3u);
  std::vector<OutgoingFrame> frames;
  for (int32_t i = 1; i < 4; ++i) frames.emplace_back(Encoded(i));
  ASSERT_TRUE(outbox.SendFrames(std::move(frames), kLong).ok());
  const Result<size_t> full = outbox.AwaitRoom(milliseconds(100));
  EXPECT_EQ(full.status().code(), StatusCode::kDeadlineExceeded) << full.status();
}

TEST(ElementOutboxTest, ASendWaitsForRoomUpToItsTimeout) {
  Link link(/*credit_elements=*/0);  // no credit: the first element is never written
  ElementOutbox outbox(link.sender, /*depth=*/2);
  ASSERT_TRUE(outbox.SendElement(Encoded(0), kLong).ok());
  ASSERT_TRUE(outbox.SendElement(Encoded(1), kLong).ok());
  const Status full = outbox.SendElement(Encoded(2), milliseconds(100));
  EXPECT_EQ(full.code(), StatusCode::kDeadlineExceeded) << full;
  EXPECT_NE(full.message().find("no room"), std::string::npos) << full;
  EXPECT_EQ(outbox.Flush(milliseconds(100)).code(), StatusCode::kDeadlineExceeded);
}

TEST(ElementOutboxTest, ASendWaitsWhileTheQueuedPayloadReachesItsBytes) {
  Link link(/*credit_elements=*/0);
  ElementOutbox outbox(link.sender, /*depth=*/16, /*max_bytes=*/1000);
  auto big = [] {
    return *EncodeElement(Element{Tensor::FromVector(std::vector<int32_t>(200, 7))});  // 800 payload bytes
  };
  ASSERT_TRUE(outbox.SendElement(big(), kLong).ok());
  ASSERT_TRUE(outbox.SendElement(big(), kLong).ok()) << "800 bytes queued leave room";
  const Status full = outbox.SendElement(big(), milliseconds(100));
  EXPECT_EQ(full.code(), StatusCode::kDeadlineExceeded) << full;
  EXPECT_NE(full.message().find("1600 payload bytes"), std::string::npos) << full;
}

TEST(ElementOutboxTest, AClosedConnectionEndsEveryWaitWithItsStatus) {
  Link link(/*credit_elements=*/0);
  ElementOutbox outbox(link.sender, /*depth=*/1);
  ASSERT_TRUE(outbox.SendElement(Encoded(0), kLong).ok());
  std::future<Status> waiting = std::async(std::launch::async, [&] { return outbox.SendElement(Encoded(1), kLong); });
  EXPECT_EQ(waiting.wait_for(milliseconds(200)), std::future_status::timeout) << "it waits for room";
  const auto start = std::chrono::steady_clock::now();
  link.sender->Close(UnavailableError("the peer left"));
  ASSERT_EQ(waiting.wait_for(kLong), std::future_status::ready);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  const Status ended = waiting.get();
  EXPECT_EQ(ended.code(), StatusCode::kUnavailable) << ended;
  EXPECT_EQ(outbox.Flush(kLong).code(), StatusCode::kUnavailable);
  EXPECT_EQ(outbox.Send(Note(2), kLong).code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace sluice::service

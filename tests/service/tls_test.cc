// TLS under data-service connections: contexts from PEM files, a round trip
// over TLS to a server with a self-signed certificate made here, and the
// refusals (a plain client, a certificate from another CA).
#include "sluice/service/tls.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "sluice/service/connect.h"
#include "sluice/service/server.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kLong{20000};

// A self-signed certificate for 127.0.0.1 (an EC P-256 key), in a folder
// removed with it.
class Certificate {
 public:
  Certificate() {
    const std::string command =
        StrCat("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 ",
               "-addext subjectAltName=IP:127.0.0.1 -days 1 -keyout ", key(), " -out ", cert(), " 2>",
               folder_.File("log"));
    made_ = std::system(command.c_str()) == 0;
  }
  bool made() const { return made_; }
  std::string cert() const { return folder_.File("cert.pem"); }
  std::string key() const { return folder_.File("key.pem"); }

 private:
  testing::TempDir folder_;
  bool made_ = false;
};

// A server that echoes every frame back.
Result<std::unique_ptr<Server>> EchoServer(const Certificate& certificate) {
  return Server::Start({.role = ROLE_WORKER, .name = "echo",
                        .tls = TlsOptions{.cert_file = certificate.cert(), .key_file = certificate.key()}},
                       [](std::shared_ptr<Connection> c) -> asio::awaitable<void> {
                         while (true) {
                           Result<ReceivedFrame> got = co_await c->Receive(Clock::time_point::max());
                           if (!got.ok() || !(co_await c->Send(got->frame)).ok()) co_return;
                         }
                       });
}

Frame ErrorFrame(const std::string& message) {
  Frame frame;
  frame.mutable_error()->set_message(message);
  return frame;
}

// An echo server with a certificate of its own, and an io thread for clients.
class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(certificate_.made()) << "openssl could not make a certificate";
    Result<std::unique_ptr<Server>> server = EchoServer(certificate_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  Certificate certificate_;
  std::unique_ptr<Server> server_;
  IoThread io_;
};

TEST_F(TlsTest, FramesRoundTripOverTls) {
  Result<std::shared_ptr<Connection>> client =
      Connect(io_, server_->address(), {.tls = TlsOptions{.ca_file = certificate_.cert()}});
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE((*client)->tls());
  EXPECT_EQ((*client)->peer().name, "echo");
  const std::string big(300000, 'x');  // many TLS records
  for (const std::string& message : {std::string("ping"), big}) {
    ASSERT_TRUE((*client)->SendBlocking(ErrorFrame(message), kLong).ok());
    Result<ReceivedFrame> echo = (*client)->ReceiveBlocking(kLong);
    ASSERT_TRUE(echo.ok()) << echo.status();
    EXPECT_EQ(echo->frame.error().message(), message);
  }
  (*client)->Close();
  server_->Stop();
}

TEST_F(TlsTest, PlainClientIsRefusedSayingTheServerRequiresTls) {
  Result<std::shared_ptr<Connection>> client = Connect(io_, server_->address(), {});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kFailedPrecondition) << client.status();
  EXPECT_NE(client.status().message().find("requires TLS"), std::string::npos) << client.status();
  // The server counts the refusal after its answer has gone.
  for (int i = 0; i < 2000 && server_->refused() < 1; ++i) std::this_thread::sleep_for(milliseconds(10));
  EXPECT_EQ(server_->refused(), 1u);
  EXPECT_EQ(server_->accepted(), 0u);
}

TEST_F(TlsTest, CertificateFromAnotherCaIsRejected) {
  Certificate other;
  ASSERT_TRUE(other.made()) << "openssl could not make a certificate";
  Result<std::shared_ptr<Connection>> client =
      Connect(io_, server_->address(), {.tls = TlsOptions{.ca_file = other.cert()}});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kUnavailable) << client.status();
  EXPECT_NE(client.status().message().find("TLS handshake"), std::string::npos) << client.status();
  server_->Stop();
  EXPECT_EQ(server_->accepted(), 0u);
}

TEST(TlsContextTest, NeedsItsFilesAndSaysWhichIsMissing) {
  EXPECT_EQ(MakeTlsContext({}, TlsSide::kServer).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeTlsContext({}, TlsSide::kClient).status().code(), StatusCode::kInvalidArgument);
  const Status missing = MakeTlsContext({.ca_file = "/nonexistent/ca.pem"}, TlsSide::kClient).status();
  EXPECT_EQ(missing.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(missing.message().find("/nonexistent/ca.pem"), std::string::npos) << missing;
  auto server = Server::Start({.tls = TlsOptions{.cert_file = "/nonexistent/cert.pem", .key_file = "/nonexistent/k"}},
                              [](std::shared_ptr<Connection>) -> asio::awaitable<void> { co_return; });
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("/nonexistent/cert.pem"), std::string::npos) << server.status();
}

}  // namespace
}  // namespace sluice::service

#include "sluice/service/handshake.h"

#include <algorithm>

#include "sluice/service/auth.h"

namespace sluice::service {
namespace {

constexpr FrameLimits kHandshakeLimits{kMaxHandshakeFrameBytes, 0};

std::string VersionString(uint32_t major, uint32_t minor) { return StrCat(major, ".", minor); }

// Sends a Error (best effort) and closes the connection with `status`.
asio::awaitable<Status> Refuse(Connection& connection, Status status) {
  Frame frame;
  frame.mutable_error()->set_code(static_cast<uint32_t>(status.code()));
  frame.mutable_error()->set_message(status.message());
  (void)co_await connection.Send(std::move(frame));
  connection.Close(status);
  co_return status;
}

// Fails (closing the connection) with the status `status`.
Status Fail(Connection& connection, Status status) {
  connection.Close(status);
  return status;
}

// The status of the Error a server refused the handshake with.
Status FromRefusal(const Error& refusal, std::string_view peer) {
  StatusCode code = static_cast<StatusCode>(refusal.code());
  if (code == StatusCode::kOk || refusal.code() > static_cast<uint32_t>(StatusCode::kUnauthenticated)) {
    code = StatusCode::kUnavailable;
  }
  return Status(code, StrCat("the server ", peer, " refused the connection: ", refusal.message()));
}

Status UnexpectedFrame(std::string_view expected, const Frame& frame, std::string_view peer) {
  return DataLossError("handshake with ", peer, ": expected ", expected, ", found a frame of kind ",
                       static_cast<int>(frame.kind_case()));
}

}  // namespace

asio::awaitable<Status> HandshakeAsClient(Connection& connection, HandshakeOptions options) {
  const Clock::time_point deadline = DeadlineAfter(options.timeout);
  const std::string peer = connection.peer().address;
  Frame hello;
  hello.mutable_hello()->set_major(options.major);
  hello.mutable_hello()->set_minor(options.minor);
  hello.mutable_hello()->set_role(options.role);
  hello.mutable_hello()->set_peer_name(options.name);
  if (Status s = co_await connection.Send(std::move(hello)); !s.ok()) co_return Fail(connection, s);

  Result<ReceivedFrame> answer = co_await connection.ReadFrame(kHandshakeLimits, deadline);
  if (!answer.ok()) co_return Fail(connection, answer.status());
  if (answer->frame.has_error()) co_return Fail(connection, FromRefusal(answer->frame.error(), peer));
  if (!answer->frame.has_challenge()) co_return Fail(connection, UnexpectedFrame("a Challenge", answer->frame, peer));
  const Challenge& challenge = answer->frame.challenge();
  if (challenge.major() != options.major) {
    co_return Fail(connection, FailedPreconditionError("the server ", peer, " speaks protocol version ",
                                                       VersionString(challenge.major(), challenge.minor()),
                                                       ", this client ", VersionString(options.major, options.minor),
                                                       ": major versions must match"));
  }
  if (challenge.auth_required() && !options.token.has_value()) {
    co_return Fail(connection, UnauthenticatedError("the server ", peer, " requires a token (--token-file or ",
                                                    kTokenEnvironmentVariable, "), and this client has none"));
  }
  Frame proof;
  if (options.token.has_value()) {
    proof.mutable_auth_proof()->set_hmac(
        ComputeAuthProof(*options.token, challenge.nonce(), options.major, options.minor, options.role));
  } else {
    proof.mutable_auth_proof();
  }
  if (Status s = co_await connection.Send(std::move(proof)); !s.ok()) co_return Fail(connection, s);

  Result<ReceivedFrame> verdict = co_await connection.ReadFrame(kHandshakeLimits, deadline);
  if (!verdict.ok()) co_return Fail(connection, verdict.status());
  if (verdict->frame.has_error()) co_return Fail(connection, FromRefusal(verdict->frame.error(), peer));
  if (!verdict->frame.has_welcome()) co_return Fail(connection, UnexpectedFrame("a Welcome", verdict->frame, peer));
  PeerInfo info = connection.peer();
  info.major = challenge.major();
  info.minor = challenge.minor();
  info.common_minor = std::min(options.minor, challenge.minor());
  info.name = verdict->frame.welcome().peer_name();
  connection.set_peer(std::move(info));
  co_return OkStatus();
}

asio::awaitable<Status> HandshakeAsServer(Connection& connection, HandshakeOptions options) {
  const Clock::time_point deadline = DeadlineAfter(options.timeout);
  const std::string peer = connection.peer().address;
  Result<ReceivedFrame> first = co_await connection.ReadFrame(kHandshakeLimits, deadline);
  if (!first.ok()) co_return Fail(connection, first.status());
  if (!first->frame.has_hello()) {
    co_return co_await Refuse(connection, UnexpectedFrame("a Hello", first->frame, peer));
  }
  const Hello hello = first->frame.hello();
  if (hello.major() != options.major) {
    co_return co_await Refuse(
        connection, FailedPreconditionError("the client ", peer, " speaks protocol version ",
                                            VersionString(hello.major(), hello.minor()), ", this server ",
                                            VersionString(options.major, options.minor),
                                            ": major versions must match"));
  }
  Result<std::string> nonce = MakeNonce();
  if (!nonce.ok()) co_return Fail(connection, nonce.status());
  Frame challenge;
  challenge.mutable_challenge()->set_major(options.major);
  challenge.mutable_challenge()->set_minor(options.minor);
  challenge.mutable_challenge()->set_nonce(*nonce);
  challenge.mutable_challenge()->set_auth_required(options.token.has_value());
  challenge.mutable_challenge()->set_peer_name(options.name);
  if (Status s = co_await connection.Send(std::move(challenge)); !s.ok()) co_return Fail(connection, s);

  Result<ReceivedFrame> second = co_await connection.ReadFrame(kHandshakeLimits, deadline);
  if (!second.ok()) co_return Fail(connection, second.status());
  if (!second->frame.has_auth_proof()) {
    co_return co_await Refuse(connection, UnexpectedFrame("an AuthProof", second->frame, peer));
  }
  if (options.token.has_value()) {
    const std::string expected = ComputeAuthProof(*options.token, *nonce, hello.major(), hello.minor(), hello.role());
    if (!ProofMatches(expected, second->frame.auth_proof().hmac())) {
      co_return co_await Refuse(connection, UnauthenticatedError("the client ", peer, " (", hello.peer_name(),
                                                                 ") did not prove it holds the service's token"));
    }
  }
  Frame welcome;
  welcome.mutable_welcome()->set_peer_name(options.name);
  if (Status s = co_await connection.Send(std::move(welcome)); !s.ok()) co_return Fail(connection, s);
  PeerInfo info = connection.peer();
  info.major = hello.major();
  info.minor = hello.minor();
  info.common_minor = std::min(options.minor, hello.minor());
  info.role = hello.role();
  info.name = hello.peer_name();
  connection.set_peer(std::move(info));
  co_return OkStatus();
}

}  // namespace sluice::service

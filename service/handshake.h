// The handshake that opens every data-service connection (service.proto):
//   client: Hello{version, role, name}
//   server: Challenge{version, nonce, auth_required} -- or Error when the
//           majors differ
//   client: AuthProof{HMAC of the challenge under the token, or empty}
//   server: Welcome{name} -- or Error (wrong or missing proof)
// The server reads at most kMaxHandshakeFrameBytes per frame, no payload,
// and nothing but Hello and AuthProof before the proof checks; a refused
// peer is closed without another byte read. Either side fails at once on a
// major version mismatch, naming both versions (FailedPrecondition); minors
// may differ. A wrong or missing proof is Unauthenticated on both sides.
// Thread safety: coroutines on the connection's io thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "sluice/service/connection.h"
#include "sluice/service/protocol.h"

namespace sluice::service {

struct HandshakeOptions {
  Role role = ROLE_UNSPECIFIED;
  // This end's name, for the peer's logs.
  std::string name;
  // The shared secret; none: a client sends no proof, a server demands none.
  std::optional<std::string> token;
  // The whole handshake's deadline from its start.
  std::chrono::milliseconds timeout = kDefaultHandshakeTimeout;
  // The version this end speaks (tests set others to check version skew).
  uint32_t major = kServiceProtocolMajor;
  uint32_t minor = kServiceProtocolMinor;
};

// Each sets connection.peer() on success; on failure the connection is
// closed with the same status.
// Options by value: a coroutine must own what it reads after suspending.
asio::awaitable<Status> HandshakeAsClient(Connection& connection, HandshakeOptions options);
asio::awaitable<Status> HandshakeAsServer(Connection& connection, HandshakeOptions options);

}  // namespace sluice::service

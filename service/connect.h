// Connect: the dialling side of the data service. Resolves "host:port",
// connects, runs TLS when asked (service/tls.h: the server's certificate
// must chain to the CA file and name the host dialled) and handshakes as a
// client (service/handshake.h), all within one timeout, and hands back a
// started Connection.
// Thread safety: ConnectAsync on the IoThread; Connect from any other
// thread.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "sluice/service/connection.h"
#include "sluice/service/handshake.h"
#include "sluice/service/io_thread.h"

namespace sluice::service {

struct ConnectOptions {
  Role role = ROLE_CLIENT;
  std::string name;                   // this end's name in the handshake
  std::optional<std::string> token;   // service/auth.h LoadToken
  // TLS: the CA file the server's certificate chains to (and this end's
  // certificate and key when the server demands one); none: plain TCP.
  std::optional<TlsOptions> tls;
  // Resolve, connect and handshake together.
  std::chrono::milliseconds timeout = kDefaultHandshakeTimeout;
  ConnectionOptions connection;
  // The version spoken (tests set others to check version skew).
  uint32_t major = kServiceProtocolMajor;
  uint32_t minor = kServiceProtocolMinor;
};

// A started connection to `address`: DeadlineExceeded past the timeout,
// Unavailable when nothing listens there, the handshake's error otherwise.
asio::awaitable<Result<std::shared_ptr<Connection>>> ConnectAsync(IoThread& io, std::string address,
                                                                  ConnectOptions options);
Result<std::shared_ptr<Connection>> Connect(IoThread& io, const std::string& address,
                                            const ConnectOptions& options = {});

}  // namespace sluice::service

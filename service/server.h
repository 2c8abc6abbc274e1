// Server: the accepting side of a data-service role (dispatcher, worker).
// It binds a TCP port, handshakes each peer (service/handshake.h) and runs
// the role's handler coroutine for every authenticated connection, all on
// its own IoThread.
//
// Binding: 127.0.0.1 by default; any other address only with a token (a
// peer that can reach the port can otherwise run pipelines on the host).
// With TLS (service/tls.h) every peer's TLS handshake comes first and the
// service's handshake runs inside it; a plain peer is refused.
// Stop closes the acceptor and every connection, so that handlers' waits
// return Cancelled, and joins the io thread: it returns within 1 s even when
// peers are dead or handlers are mid-wait.
// Thread safety: port(), address() and Stop from any thread but the io
// thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/service/connection.h"
#include "sluice/service/handshake.h"
#include "sluice/service/io_thread.h"

namespace sluice::service {

struct ServerOptions {
  // The address to bind; a non-loopback one requires a token.
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0: any free port (read it back with port())
  // The shared secret peers must prove they hold; none: no proof asked.
  std::optional<std::string> token;
  // This server's role and name in the handshake.
  Role role = ROLE_UNSPECIFIED;
  std::string name;
  // TLS: the server's certificate and key (and a CA to verify clients'
  // certificates); none: plain TCP.
  std::optional<TlsOptions> tls;
  // The TLS and the service's handshake together.
  std::chrono::milliseconds handshake_timeout = kDefaultHandshakeTimeout;
  ConnectionOptions connection;
  // Connections open at once; more are refused (closed) until one ends.
  size_t max_connections = 1024;
};

// Runs one authenticated connection; the connection closes when it returns.
using ConnectionHandler = std::function<asio::awaitable<void>(std::shared_ptr<Connection>)>;

class Server {
 public:
  // Binds and starts accepting. InvalidArgument for a non-loopback host
  // without a token or TLS files that do not load, Unavailable naming the
  // address when it cannot bind.
  static Result<std::unique_ptr<Server>> Start(ServerOptions options, ConnectionHandler handler);
  // Stop().
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  uint16_t port() const { return port_; }
  // "host:port" as clients dial it.
  std::string address() const;
  IoThread& io() { return io_; }
  // Connections whose handshake succeeded, and those refused.
  uint64_t accepted() const { return accepted_.load(); }
  uint64_t refused() const { return refused_.load(); }

  // Stops accepting, closes every connection and joins. Idempotent.
  void Stop();

 private:
  Server(ServerOptions options, ConnectionHandler handler);
  asio::awaitable<void> AcceptLoop();
  asio::awaitable<void> Serve(std::shared_ptr<Connection> connection);

  const ServerOptions options_;
  const ConnectionHandler handler_;
  std::shared_ptr<asio::ssl::context> tls_context_;  // null: plain TCP
  IoThread io_;
  asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  // Open connections, closed by Stop (io thread only).
  std::vector<std::weak_ptr<Connection>> connections_;
  std::atomic<uint64_t> accepted_{0};
  std::atomic<uint64_t> refused_{0};
  std::once_flag stopped_;
};

}  // namespace sluice::service

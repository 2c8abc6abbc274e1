#include "sluice/service/connect.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "sluice/service/address.h"

namespace sluice::service {

asio::awaitable<Result<std::shared_ptr<Connection>>> ConnectAsync(IoThread& io, std::string address,
                                                                  ConnectOptions options) {
  const Clock::time_point deadline = DeadlineAfter(options.timeout);
  Result<HostPort> target = ParseHostPort(address);
  if (!target.ok()) co_return target.status();
  std::shared_ptr<asio::ssl::context> tls_context;
  if (options.tls.has_value()) {
    Result<std::shared_ptr<asio::ssl::context>> made = MakeTlsContext(*options.tls, TlsSide::kClient);
    if (!made.ok()) co_return made.status();
    tls_context = *std::move(made);
  }
  auto socket = std::make_shared<asio::ip::tcp::socket>(io.context());
  auto resolver = std::make_shared<asio::ip::tcp::resolver>(io.context());
  // One timer bounds resolving and connecting: it cancels both.
  auto expired = std::make_shared<bool>(false);
  asio::steady_timer timer(io.context());
  timer.expires_at(deadline);
  timer.async_wait([socket, resolver, expired](boost::system::error_code error) {
    if (error) return;
    *expired = true;
    resolver->cancel();
    boost::system::error_code ignored;
    socket->close(ignored);
  });
  boost::system::error_code error;
  const auto endpoints = co_await resolver->async_resolve(target->host, std::to_string(target->port),
                                                          asio::redirect_error(asio::use_awaitable, error));
  if (!error) {
    co_await asio::async_connect(*socket, endpoints, asio::redirect_error(asio::use_awaitable, error));
  }
  timer.cancel();
  if (*expired) {
    co_return DeadlineExceededError("connecting to ", address, " took more than ", options.timeout.count(), " ms");
  }
  if (error) co_return UnavailableError("cannot connect to ", address, ": ", error.message());

  std::shared_ptr<Connection> connection = Connection::Make(io, std::move(*socket), options.connection);
  if (tls_context != nullptr) {
    Status status = co_await connection->StartTls(std::move(tls_context), TlsSide::kClient, target->host, deadline);
    if (!status.ok()) co_return status;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  HandshakeOptions handshake{.role = options.role, .name = options.name, .token = options.token,
                             .timeout = std::max(left, std::chrono::milliseconds(1)),
                             .major = options.major, .minor = options.minor};
  Status status = co_await HandshakeAsClient(*connection, handshake);
  if (!status.ok()) co_return status;
  connection->Start();
  co_return connection;
}

Result<std::shared_ptr<Connection>> Connect(IoThread& io, const std::string& address, const ConnectOptions& options) {
  return io.RunBlocking<std::shared_ptr<Connection>>(
      [&io, address, options] { return ConnectAsync(io, address, options); },
      options.timeout + std::chrono::milliseconds(1000));
}

}  // namespace sluice::service

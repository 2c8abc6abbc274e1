#include "sluice/service/server.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <future>

#include "sluice/service/address.h"

namespace sluice::service {

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options, ConnectionHandler handler) {
  if (!IsLoopbackHost(options.host) && !options.token.has_value()) {
    return InvalidArgumentError("binding ", options.host,
                                " (not a loopback address) needs a token (--token-file or ",
                                "SLUICE_SERVICE_TOKEN): without one, anyone who reaches the port runs pipelines here");
  }
  const std::string host = options.host == "localhost" ? "127.0.0.1" : options.host;
  boost::system::error_code error;
  const asio::ip::address ip = asio::ip::make_address(host, error);
  if (error) return InvalidArgumentError("cannot bind '", options.host, "': not an IP address");
  const asio::ip::tcp::endpoint endpoint(ip, options.port);
  std::shared_ptr<asio::ssl::context> tls_context;
  if (options.tls.has_value()) {
    SLUICE_ASSIGN_OR_RETURN(tls_context, MakeTlsContext(*options.tls, TlsSide::kServer));
  }
  std::unique_ptr<Server> server(new Server(std::move(options), std::move(handler)));
  server->tls_context_ = std::move(tls_context);
  asio::ip::tcp::acceptor& acceptor = server->acceptor_;
  acceptor.open(endpoint.protocol(), error);
  if (!error) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), error);
  if (!error) acceptor.bind(endpoint, error);
  if (!error) acceptor.listen(asio::socket_base::max_listen_connections, error);
  if (error) {
    return UnavailableError("cannot listen on ", HostPort{host, endpoint.port()}.ToString(), ": ", error.message());
  }
  server->port_ = acceptor.local_endpoint().port();
  asio::co_spawn(server->io_.context(), server->AcceptLoop(), asio::detached);
  return server;
}

Server::Server(ServerOptions options, ConnectionHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)), io_("sluice-server"), acceptor_(io_.context()) {}

Server::~Server() { Stop(); }

std::string Server::address() const {
  return HostPort{options_.host == "localhost" ? "127.0.0.1" : options_.host, port_}.ToString();
}

asio::awaitable<void> Server::AcceptLoop() {
  while (true) {
    boost::system::error_code error;
    asio::ip::tcp::socket socket = co_await acceptor_.async_accept(asio::redirect_error(asio::use_awaitable, error));
    if (error == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
    if (error) continue;  // a peer gone before accept completed, or out of descriptors for a moment
    std::erase_if(connections_, [](const std::weak_ptr<Connection>& c) { return c.expired(); });
    if (connections_.size() >= options_.max_connections) {
      ++refused_;
      continue;  // the socket closes here
    }
    std::shared_ptr<Connection> connection = Connection::Make(io_, std::move(socket), options_.connection);
    connections_.push_back(connection);
    asio::co_spawn(io_.context(), Serve(std::move(connection)), asio::detached);
  }
}

asio::awaitable<void> Server::Serve(std::shared_ptr<Connection> connection) {
  const Clock::time_point deadline = DeadlineAfter(options_.handshake_timeout);
  if (tls_context_ != nullptr && !(co_await connection->StartTls(tls_context_, TlsSide::kServer, "", deadline)).ok()) {
    ++refused_;
    co_return;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  HandshakeOptions handshake{.role = options_.role, .name = options_.name, .token = options_.token,
                             .timeout = std::max(left, std::chrono::milliseconds(1))};
  if (!(co_await HandshakeAsServer(*connection, handshake)).ok()) {
    ++refused_;
    co_return;
  }
  ++accepted_;
  connection->Start();
  co_await handler_(connection);
  connection->Close(CancelledError("the server's handler finished"));
}

void Server::Stop() {
  std::call_once(stopped_, [this] {
    // Close on the io thread (its objects are not thread-safe), then join.
    std::promise<void> closed;
    asio::post(io_.context(), [this, &closed] {
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      for (const auto& weak : connections_) {
        if (auto connection = weak.lock()) connection->Close(CancelledError("the server is stopping"));
      }
      closed.set_value();
    });
    closed.get_future().wait_for(std::chrono::milliseconds(500));
    io_.Stop();
  });
}

}  // namespace sluice::service

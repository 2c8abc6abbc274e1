// TLS for data-service connections: the settings and the asio::ssl contexts
// built from PEM files (Debian's OpenSSL). A connection with TLS runs its TLS
// handshake first and the service's handshake (versions, token) inside it
// (Connection::StartTls). Only TLS 1.3 is spoken.
//   server: its certificate and key; with a CA file it also demands a
//           certificate from each client and verifies it against the CA.
//   client: the CA file that the server's certificate must chain to; the
//           certificate must name the host dialled (a DNS name or an IP
//           address in its subjectAltName). A certificate and key of its own
//           when the server demands one.
// Thread safety: pure functions; a context is shared by the connections
// made from it, on their io thread.
#pragma once

#include <memory>
#include <string>

#include "sluice/core/status.h"

namespace boost::asio::ssl {
class context;
}  // namespace boost::asio::ssl

namespace sluice::service {

struct TlsOptions {
  // PEM files, by path.
  std::string cert_file;  // server: required; client: with key_file, optional
  std::string key_file;
  std::string ca_file;    // client: required; server: optional (client certificates)
};

enum class TlsSide { kServer, kClient };

// A context for `side`, its files loaded: InvalidArgument naming the file and
// OpenSSL's reason when one is missing or unreadable, or a required one is
// not given.
Result<std::shared_ptr<boost::asio::ssl::context>> MakeTlsContext(const TlsOptions& options, TlsSide side);

}  // namespace sluice::service

#include "sluice/service/tls.h"

#include <utility>  // before Asio

#include <boost/asio/ssl/context.hpp>
#include <openssl/err.h>
#include <openssl/ssl.h>

namespace sluice::service {
namespace {

namespace ssl = boost::asio::ssl;

// OpenSSL's reasons for the last failure, and clears its error queue.
std::string OpenSslErrors() {
  std::string reasons;
  while (unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof(text));
    if (!reasons.empty()) reasons += "; ";
    reasons += text;
  }
  return reasons.empty() ? "no reason given" : reasons;
}

Status Load(const std::string& path, std::string_view what, int loaded) {
  if (loaded == 1) return OkStatus();
  return InvalidArgumentError("TLS: cannot load the ", what, " file '", path, "': ", OpenSslErrors());
}

}  // namespace

Result<std::shared_ptr<ssl::context>> MakeTlsContext(const TlsOptions& options, TlsSide side) {
  const bool server = side == TlsSide::kServer;
  if (server && (options.cert_file.empty() || options.key_file.empty())) {
    return InvalidArgumentError("TLS: a server needs a certificate file and a key file");
  }
  if (!server && options.ca_file.empty()) {
    return InvalidArgumentError("TLS: a client needs the CA file that the server's certificate chains to");
  }
  if (options.cert_file.empty() != options.key_file.empty()) {
    return InvalidArgumentError("TLS: a certificate file needs its key file, and a key file its certificate");
  }
  ERR_clear_error();
  auto context = std::make_shared<ssl::context>(server ? ssl::context::tls_server : ssl::context::tls_client);
  SSL_CTX* native = context->native_handle();
  if (SSL_CTX_set_min_proto_version(native, TLS1_3_VERSION) != 1) {
    return InternalError("TLS: OpenSSL refuses TLS 1.3 as the minimum version: ", OpenSslErrors());
  }
  if (!options.cert_file.empty()) {
    SLUICE_RETURN_IF_ERROR(
        Load(options.cert_file, "certificate", SSL_CTX_use_certificate_chain_file(native, options.cert_file.c_str())));
    SLUICE_RETURN_IF_ERROR(Load(options.key_file, "key",
                                SSL_CTX_use_PrivateKey_file(native, options.key_file.c_str(), SSL_FILETYPE_PEM)));
    if (SSL_CTX_check_private_key(native) != 1) {
      return InvalidArgumentError("TLS: the key in '", options.key_file, "' does not match the certificate in '",
                                  options.cert_file, "': ", OpenSslErrors());
    }
  }
  if (!options.ca_file.empty()) {
    SLUICE_RETURN_IF_ERROR(
        Load(options.ca_file, "CA", SSL_CTX_load_verify_locations(native, options.ca_file.c_str(), nullptr)));
    // A client always checks the server; a server with a CA checks clients.
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER | (server ? SSL_VERIFY_FAIL_IF_NO_PEER_CERT : 0), nullptr);
  }
  return context;
}

}  // namespace sluice::service

#include "sluice/service/address.h"

#include <utility>  // before Asio

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace sluice::service {

namespace asio = boost::asio;

std::string HostPort::ToString() const {
  if (host.find(':') != std::string::npos) return StrCat("[", host, "]:", port);
  return StrCat(host, ":", port);
}

Result<HostPort> ParseHostPort(std::string_view address) {
  HostPort result;
  std::string_view port;
  if (!address.empty() && address.front() == '[') {
    const size_t close = address.find(']');
    if (close == std::string_view::npos || close + 1 >= address.size() || address[close + 1] != ':') {
      return InvalidArgumentError("address '", address, "': expected [ipv6-host]:port");
    }
    result.host = std::string(address.substr(1, close - 1));
    port = address.substr(close + 2);
  } else {
    const size_t colon = address.rfind(':');
    if (colon == std::string_view::npos) {
      return InvalidArgumentError("address '", address, "': expected host:port");
    }
    result.host = std::string(address.substr(0, colon));
    port = address.substr(colon + 1);
    if (result.host.find(':') != std::string::npos) {
      return InvalidArgumentError("address '", address, "': an IPv6 host goes in brackets, [", result.host,
                                  "]:port");
    }
  }
  if (result.host.empty()) return InvalidArgumentError("address '", address, "': the host is empty");
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value > 65535) {
    return InvalidArgumentError("address '", address, "': the port must be a number from 0 to 65535, found '",
                                port, "'");
  }
  result.port = static_cast<uint16_t>(value);
  return result;
}

bool IsLoopbackHost(std::string_view host) {
  if (host == "localhost") return true;
  boost::system::error_code error;
  const asio::ip::address ip = asio::ip::make_address(std::string(host), error);
  return !error && ip.is_loopback();
}

}  // namespace sluice::service

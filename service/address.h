// Service addresses: "host:port" with a host name, an IPv4 address or a
// bracketed IPv6 address ("[::1]:5000"), and whether an address is the
// loopback (what a server may bind without a token).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace sluice::service {

struct HostPort {
  std::string host;  // without brackets
  uint16_t port = 0;
  std::string ToString() const;  // brackets an IPv6 host
};

// InvalidArgument naming the address when the host is empty or the port is
// not a number in 0..65535.
Result<HostPort> ParseHostPort(std::string_view address);

// True for "localhost" and the loopback addresses (127.0.0.0/8, ::1); a
// host name other than localhost is not loopback.
bool IsLoopbackHost(std::string_view host);

}  // namespace sluice::service

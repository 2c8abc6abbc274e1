// A raw loopback TCP stream, the ceiling the data service's benchmarks
// measure themselves against: one thread write()s the bytes, the caller's
// thread read()s them, with no framing, copies or flow control of ours.
#pragma once

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace sluice {

// Seconds to move `total` bytes over loopback in `chunk`-byte writes.
inline double RawLoopbackStream(uint64_t total, size_t chunk) {
  const auto fail = [](const char* what) {
    std::perror(what);
    std::exit(1);
  };
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    fail("raw loopback listener");
  }
  const auto start = std::chrono::steady_clock::now();
  std::thread writer([&] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) fail("raw loopback connect");
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    std::vector<char> data(chunk, 'x');
    for (uint64_t sent = 0; sent < total;) {
      const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk, total - sent));
      for (size_t done = 0; done < want;) {
        const ssize_t n = ::write(fd, data.data() + done, want - done);
        if (n <= 0) fail("raw loopback write");
        done += static_cast<size_t>(n);
      }
      sent += want;
    }
    ::close(fd);
  });
  const int fd = ::accept(listener, nullptr, nullptr);
  std::vector<char> buffer(chunk);
  uint64_t received = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) fail("raw loopback read");
    if (n == 0) break;
    received += static_cast<uint64_t>(n);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  writer.join();
  ::close(fd);
  ::close(listener);
  if (received != total) {
    std::fprintf(stderr, "error: the raw loopback stream lost bytes\n");
    std::exit(1);
  }
  return seconds;
}

}  // namespace sluice

#include "sluice/tools/stdout_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <streambuf>

namespace sluice::cli {
namespace {

// A streambuf that writes its buffer to a file descriptor; the first
// failure's errno is kept and every write after it fails too.
class FdWriter final : public std::streambuf {
 public:
  explicit FdWriter(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof(buffer_)); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!Drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return Drain() ? 0 : -1; }

 private:
  // Writes out what is buffered; false once a write failed.
  bool Drain() {
    for (const char* p = pbase(); error_ == 0 && p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
      if (n >= 0)
        p += n;
      else if (errno != EINTR)
        error_ = errno;
    }
    setp(buffer_, buffer_ + sizeof(buffer_));
    return error_ == 0;
  }

  const int fd_;
  int error_ = 0;
  char buffer_[1 << 16];
};

FdWriter& Writer() {
  static auto* writer = new FdWriter(STDOUT_FILENO);
  return *writer;
}

}  // namespace

void UseCheckedStdout() { std::cout.rdbuf(&Writer()); }

Status FlushStdout() {
  std::cout.flush();
  if (Writer().error() != 0) {
    return InternalError("writing to stdout failed: ", std::strerror(Writer().error()));
  }
  if (!std::cout) return InternalError("writing to stdout failed");
  return OkStatus();
}

}  // namespace sluice::cli

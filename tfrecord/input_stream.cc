#include "sluice/tfrecord/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice {

namespace {

class FileInputStream final : public InputStream {
 public:
  FileInputStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~FileInputStream() override { ::close(fd_); }

  Result<size_t> Read(void* out, size_t size) override {
    size_t done = 0;
    while (done < size) {
      const ssize_t n = ::read(fd_, static_cast<char*>(out) + done, size - done);
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        return InternalError(StrCat("Reading ", path_, " failed: ", std::strerror(errno)));
      }
      done += static_cast<size_t>(n);
    }
    return done;
  }
  const std::string& name() const override { return path_; }
  Result<uint64_t> Skip(uint64_t size) override {
    struct stat info;
    const off_t position = ::lseek(fd_, 0, SEEK_CUR);
    if (position < 0 || ::fstat(fd_, &info) != 0) {
      return InternalError(StrCat("Seeking in ", path_, " failed: ", std::strerror(errno)));
    }
    const uint64_t left = info.st_size > position ? static_cast<uint64_t>(info.st_size - position) : 0;
    const uint64_t skipped = std::min(size, left);
    if (::lseek(fd_, static_cast<off_t>(skipped), SEEK_CUR) < 0) {
      return InternalError(StrCat("Seeking in ", path_, " failed: ", std::strerror(errno)));
    }
    return skipped;
  }

 private:
  const int fd_;
  const std::string path_;
};

class MemoryInputStream final : public InputStream {
 public:
  MemoryInputStream(std::string_view bytes, std::string name)
      : bytes_(bytes), name_(std::move(name)) {}

  Result<size_t> Read(void* out, size_t size) override {
    const size_t n = std::min(size, bytes_.size() - position_);
    if (n > 0) std::memcpy(out, bytes_.data() + position_, n);
    position_ += n;
    return n;
  }
  const std::string& name() const override { return name_; }

 private:
  const std::string_view bytes_;
  const std::string name_;
  size_t position_ = 0;
};

}  // namespace

Result<uint64_t> InputStream::Skip(uint64_t size) {
  char scratch[64 << 10];
  uint64_t done = 0;
  while (done < size) {
    SLUICE_ASSIGN_OR_RETURN(size_t n, Read(scratch, std::min<uint64_t>(sizeof(scratch), size - done)));
    if (n == 0) break;
    done += n;
  }
  return done;
}

Result<std::unique_ptr<InputStream>> OpenFileInputStream(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int error = errno;
    std::string message = StrCat("Cannot open ", path, ": ", std::strerror(error));
    if (error == ENOENT) return NotFoundError(message);
    return InvalidArgumentError(message);
  }
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return InvalidArgumentError(StrCat("Cannot read ", path, ": it is a directory, not a file"));
  }
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<InputStream>(new FileInputStream(fd, path));
}

std::unique_ptr<InputStream> MakeMemoryInputStream(std::string_view bytes, std::string name) {
  return std::make_unique<MemoryInputStream>(bytes, std::move(name));
}

}  // namespace sluice

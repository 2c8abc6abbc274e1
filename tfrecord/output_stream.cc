#include "sluice/tfrecord/output_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace sluice {

namespace {

class FileOutputStream final : public OutputStream {
 public:
  FileOutputStream(int fd, std::string path, size_t buffer_size)
      : fd_(fd), path_(std::move(path)) {
    buffer_.reserve(std::max<size_t>(buffer_size, 1));
  }
  ~FileOutputStream() override {
    if (fd_ >= 0) (void)Close();
  }

  Status Write(const void* data, size_t size) override {
    if (fd_ < 0) return FailedPreconditionError(StrCat(path_, ": write after close"));
    if (buffer_.size() + size > buffer_.capacity()) {
      SLUICE_RETURN_IF_ERROR(Flush());
      if (size >= buffer_.capacity()) return WriteAll(data, size);
    }
    const char* bytes = static_cast<const char*>(data);
    buffer_.insert(buffer_.end(), bytes, bytes + size);
    return OkStatus();
  }
  Status Flush() override {
    if (fd_ < 0) return OkStatus();
    Status status = WriteAll(buffer_.data(), buffer_.size());
    buffer_.clear();
    return status;
  }
  Status Close() override {
    if (fd_ < 0) return OkStatus();
    Status status = Flush();
    if (::close(fd_) != 0 && status.ok()) {
      status = InternalError(StrCat("Closing ", path_, " failed: ", std::strerror(errno)));
    }
    fd_ = -1;
    return status;
  }
  const std::string& name() const override { return path_; }

 private:
  Status WriteAll(const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd_, bytes, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        return InternalError(StrCat("Writing ", path_, " failed: ", std::strerror(errno)));
      }
      bytes += n;
      size -= static_cast<size_t>(n);
    }
    return OkStatus();
  }

  int fd_;
  const std::string path_;
  std::vector<char> buffer_;
};

class StringOutputStream final : public OutputStream {
 public:
  StringOutputStream(std::string* out, std::string name) : out_(out), name_(std::move(name)) {}
  Status Write(const void* data, size_t size) override {
    out_->append(static_cast<const char*>(data), size);
    return OkStatus();
  }
  Status Flush() override { return OkStatus(); }
  Status Close() override { return OkStatus(); }
  const std::string& name() const override { return name_; }

 private:
  std::string* const out_;
  const std::string name_;
};

}  // namespace

Result<std::unique_ptr<OutputStream>> OpenFileOutputStream(const std::string& path,
                                                           size_t buffer_size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    std::string message = StrCat("Cannot create ", path, ": ", std::strerror(error));
    if (error == ENOENT) return NotFoundError(message);
    return InvalidArgumentError(message);
  }
  return std::unique_ptr<OutputStream>(new FileOutputStream(fd, path, buffer_size));
}

std::unique_ptr<OutputStream> MakeStringOutputStream(std::string* out, std::string name) {
  return std::make_unique<StringOutputStream>(out, std::move(name));
}

}  // namespace sluice

#include "sluice/core/durable_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace sluice {
namespace {

std::string DirectoryOf(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  return directory.empty() ? "." : directory;
}

Status WriteAndSync(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return NotFoundError("cannot create '", path, "': ", std::strerror(error));
    return InternalError("cannot create '", path, "': ", std::strerror(error));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return InternalError("cannot write '", path, "' at byte offset ", done, ": ", std::strerror(error));
    }
    done += static_cast<size_t>(n);
  }
  const int synced = ::fsync(fd);
  const int error = errno;
  if (::close(fd) != 0 && synced == 0) return InternalError("cannot close '", path, "': ", std::strerror(errno));
  if (synced != 0) return InternalError("fsync of '", path, "' failed: ", std::strerror(error));
  return OkStatus();
}

}  // namespace

Status SyncPath(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InternalError("cannot open '", path, "' for fsync: ", std::strerror(errno));
  const int result = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  if (result != 0) return InternalError("fsync of '", path, "' failed: ", std::strerror(error));
  return OkStatus();
}

Status RenameDurably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return InternalError("cannot rename '", from, "' to '", to, "': ", std::strerror(errno));
  }
  return SyncPath(DirectoryOf(to));
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  static std::atomic<uint64_t> counter{0};
  const std::string temporary = StrCat(path, ".tmp-", ::getpid(), "-", counter++);
  Status status = WriteAndSync(temporary, bytes);
  if (status.ok()) status = RenameDurably(temporary, path);
  if (!status.ok()) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
  }
  return status;
}

}  // namespace sluice

#include "sluice/dataset/text_proto_file.h"

#include <fcntl.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sluice {
namespace {

// Reads 1 MiB at a time, so that a file without end stops at the limit.
constexpr size_t kReadChunk = size_t{1} << 20;

class FirstErrorCollector final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) error_ = StrCat(line + 1, ":", column + 1, ": ", message);
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

}  // namespace

Result<std::string> ReadTextFile(const std::string& path, const TextFileKind& kind) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError(kind.what, " file '", path, "' does not exist");
    return InvalidArgumentError("cannot open ", kind.what, " file '", path, "': ", std::strerror(errno));
  }
  struct stat info;
  if (::fstat(fd, &info) == 0 && S_ISDIR(info.st_mode)) {
    ::close(fd);
    return InvalidArgumentError(kind.what, " file '", path, "' is a directory");
  }
  std::string text;
  Status status;
  while (status.ok()) {
    const size_t offset = text.size();
    text.resize(offset + kReadChunk);
    const ssize_t got = ::read(fd, text.data() + offset, kReadChunk);
    text.resize(offset + std::max<ssize_t>(got, 0));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      status = InvalidArgumentError("cannot read ", kind.what, " file '", path, "' at byte offset ", offset, ": ",
                                    std::strerror(errno));
    } else if (got == 0) {
      break;
    } else if (text.size() > kind.max_bytes) {
      status = InvalidArgumentError("cannot parse ", kind.what, ": file '", path, "' is larger than the limit of ",
                                    kind.max_bytes, " bytes (", kind.limit_name, ")");
    }
  }
  ::close(fd);
  SLUICE_RETURN_IF_ERROR(status);
  return text;
}

Status ParseTextProto(std::string_view text, std::string_view what, std::string_view where, int max_depth,
                      google::protobuf::Message* out) {
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.SetRecursionLimit(max_depth);
  google::protobuf::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  if (!parser.Parse(&input, out)) return InvalidArgumentError("cannot parse ", what, ": ", where, errors.error());
  return OkStatus();
}

}  // namespace sluice

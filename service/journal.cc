#include "sluice/service/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sluice/core/logging.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice::service {
namespace {

std::string JournalFile(const std::string& dir, int64_t n) { return StrCat(dir, "/journal_", n); }

// The updates of one journal file, up to its first damaged record.
Status ReplayFile(const std::string& path, std::vector<StateUpdate>* replayed) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(path));
  std::string record;
  for (;;) {
    Result<bool> more = reader->ReadRecord(&record);
    if (!more.ok()) {
      SLUICE_LOG(WARNING) << "journal " << path << " ends in a damaged record (a write cut short): "
                          << more.status().message();
      return OkStatus();
    }
    if (!*more) return OkStatus();
    StateUpdate update;
    if (!update.ParseFromString(record)) {
      return DataLossError("journal ", path, ": record ", reader->record_index(), " at byte offset ",
                           reader->record_offset(), " is not a StateUpdate");
    }
    replayed->push_back(std::move(update));
  }
}

}  // namespace

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& dir, std::vector<StateUpdate>* replayed) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return InvalidArgumentError("cannot create work directory '", dir, "': ", error.message());
  int64_t n = 0;
  for (; std::filesystem::exists(JournalFile(dir, n), error); ++n) {
    SLUICE_RETURN_IF_ERROR(ReplayFile(JournalFile(dir, n), replayed));
  }
  const std::string path = JournalFile(dir, n);
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer, RecordWriter::Open(path));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return InternalError("cannot open journal '", path, "' for fsync: ", std::strerror(errno));
  // The new file's name must survive a crash too.
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return std::unique_ptr<Journal>(new Journal(path, std::move(writer), fd));
}

Journal::~Journal() {
  const Status status = writer_->Close();
  if (!status.ok()) SLUICE_LOG(ERROR) << "closing journal " << path_ << ": " << status.message();
  ::close(fd_);
}

Status Journal::Append(const StateUpdate& update) {
  dirty_ = true;
  return writer_->WriteRecord(update.SerializeAsString()).WithContext(StrCat("journal ", path_));
}

Status Journal::Sync() {
  if (!dirty_) return OkStatus();
  SLUICE_RETURN_IF_ERROR(writer_->Flush().WithContext(StrCat("journal ", path_)));
  if (::fsync(fd_) != 0) return InternalError("fsync of journal '", path_, "' failed: ", std::strerror(errno));
  dirty_ = false;
  return OkStatus();
}

}  // namespace sluice::service

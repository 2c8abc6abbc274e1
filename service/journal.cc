#include "sluice/service/journal.h"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>

#include "sluice/core/durable_file.h"
#include "sluice/core/logging.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice::service {
namespace {

constexpr std::string_view kJournalPrefix = "journal_";
constexpr std::string_view kSnapshotPrefix = "snapshot_";
constexpr std::string_view kTempSuffix = ".tmp";
// A record's framing around its data (tfrecord/record_format.h).
constexpr int64_t kRecordOverhead = 16;

std::string FileName(const std::string& dir, std::string_view prefix, int64_t n) {
  return StrCat(dir, "/", prefix, n);
}

// The work directory's files by kind: journal and snapshot files by
// number, and snapshots never renamed into place.
struct WorkFiles {
  std::map<int64_t, std::string> journals;
  std::map<int64_t, std::string> snapshots;
  std::vector<std::string> temporary;
};

// The largest file number taken for the dispatcher's own: no count of
// starts and compactions comes near it, and the next one cannot overflow.
constexpr int64_t kMaxFileNumber = int64_t{1} << 48;

// n when `name` is `prefix` followed by decimal digits only, n at most
// kMaxFileNumber.
std::optional<int64_t> NumberAfter(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size()) return std::nullopt;
  const std::string_view digits = name.substr(prefix.size());
  int64_t n = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (error != std::errc() || end != digits.data() + digits.size() || n < 0 || n > kMaxFileNumber) {
    return std::nullopt;
  }
  return n;
}

Result<WorkFiles> ListWorkFiles(const std::string& dir) {
  WorkFiles files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (std::optional<int64_t> n = NumberAfter(name, kJournalPrefix)) {
      files.journals[*n] = entry.path().string();
    } else if (std::optional<int64_t> n = NumberAfter(name, kSnapshotPrefix)) {
      files.snapshots[*n] = entry.path().string();
    } else if (name.starts_with(kSnapshotPrefix) && name.ends_with(kTempSuffix)) {
      files.temporary.push_back(entry.path().string());
    }
  }
  if (error) return InternalError("cannot list work directory '", dir, "': ", error.message());
  return files;
}

void RemoveFile(const std::string& path) {
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) SLUICE_LOG(WARNING) << "cannot delete superseded journal file " << path << ": " << error.message();
}

// The updates of one journal file, up to its first damaged record.
Status ReplayJournal(const std::string& path, std::vector<StateUpdate>* replayed) {
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

// The updates of a snapshot file, which must be whole.
Status ReplaySnapshot(const std::string& path, std::vector<StateUpdate>* replayed) {
  SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader, RecordReader::Open(path));
  std::string record;
  int64_t num_updates = 0;
  for (;;) {
    Result<bool> more = reader->ReadRecord(&record);
    if (!more.ok()) {
      return DataLossError("snapshot ", path, " is damaged: ", more.status().message());
    }
    if (!*more) {
      return DataLossError("snapshot ", path, " ends at byte offset ", reader->position().offset,
                           " before its end record");
    }
    SnapshotRecord parsed;
    if (!parsed.ParseFromString(record) || parsed.record_case() == SnapshotRecord::RECORD_NOT_SET) {
      return DataLossError("snapshot ", path, ": record ", reader->record_index(), " at byte offset ",
                           reader->record_offset(), " is not a SnapshotRecord");
    }
    if (parsed.has_update()) {
      replayed->push_back(std::move(*parsed.mutable_update()));
      ++num_updates;
      continue;
    }
    if (parsed.end().num_updates() != num_updates) {
      return DataLossError("snapshot ", path, ": its end record at byte offset ", reader->record_offset(),
                           " counts ", parsed.end().num_updates(), " updates, but ", num_updates, " precede it");
    }
    return OkStatus();
  }
}

// Writes `snapshot` as snapshot_<n> in `dir`: a temporary file, fsynced,
// then renamed into place and the directory fsynced.
Status WriteSnapshot(const std::string& dir, int64_t n, const std::vector<StateUpdate>& snapshot) {
  const std::string path = FileName(dir, kSnapshotPrefix, n);
  const std::string temporary = StrCat(path, kTempSuffix);
  {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer, RecordWriter::Open(temporary));
    SnapshotRecord record;
    for (const StateUpdate& update : snapshot) {
      *record.mutable_update() = update;
      SLUICE_RETURN_IF_ERROR(writer->WriteRecord(record.SerializeAsString()).WithContext(StrCat("snapshot ", temporary)));
    }
    record.mutable_end()->set_num_updates(static_cast<int64_t>(snapshot.size()));
    SLUICE_RETURN_IF_ERROR(writer->WriteRecord(record.SerializeAsString()).WithContext(StrCat("snapshot ", temporary)));
    SLUICE_RETURN_IF_ERROR(writer->Close().WithContext(StrCat("snapshot ", temporary)));
  }
  SLUICE_RETURN_IF_ERROR(SyncPath(temporary));
  return RenameDurably(temporary, path);
}

}  // namespace

Result<Journal::File> Journal::OpenFile(const std::string& dir, int64_t n) {
  File file{.path = FileName(dir, kJournalPrefix, n)};
  SLUICE_ASSIGN_OR_RETURN(file.writer, RecordWriter::Open(file.path));
  file.fd = ::open(file.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) return InternalError("cannot open journal '", file.path, "' for fsync: ", std::strerror(errno));
  // The new file's name must survive a crash too.
  const Status synced = SyncPath(dir);
  if (!synced.ok()) {
    ::close(file.fd);
    return synced;
  }
  return file;
}

Result<std::unique_ptr<Journal>> Journal::Open(const std::string& dir, std::vector<StateUpdate>* replayed) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return InvalidArgumentError("cannot create work directory '", dir, "': ", error.message());
  SLUICE_ASSIGN_OR_RETURN(WorkFiles files, ListWorkFiles(dir));
  int64_t first_journal = 0;
  int64_t next = 0;
  if (!files.snapshots.empty()) {
    const auto& [n, path] = *files.snapshots.rbegin();
    SLUICE_RETURN_IF_ERROR(ReplaySnapshot(path, replayed));
    first_journal = n;
    next = n + 1;
  }
  int64_t bytes_since_snapshot = 0;
  for (const auto& [n, path] : files.journals) {
    if (n < first_journal) continue;
    SLUICE_RETURN_IF_ERROR(ReplayJournal(path, replayed));
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (!error) bytes_since_snapshot += static_cast<int64_t>(size);
    next = n + 1;
  }
  // What the newest snapshot superseded: left by a crash during a compaction.
  for (const auto& [n, path] : files.journals) {
    if (n < first_journal) RemoveFile(path);
  }
  for (const auto& [n, path] : files.snapshots) {
    if (n < first_journal) RemoveFile(path);
  }
  for (const std::string& path : files.temporary) RemoveFile(path);
  SLUICE_ASSIGN_OR_RETURN(File file, OpenFile(dir, next));
  return std::unique_ptr<Journal>(new Journal(dir, next, std::move(file), bytes_since_snapshot));
}

void Journal::CloseFile() {
  const Status status = writer_->Close();
  if (!status.ok()) SLUICE_LOG(ERROR) << "closing journal " << path_ << ": " << status.message();
  ::close(fd_);
}

Journal::~Journal() { CloseFile(); }

Status Journal::Append(const StateUpdate& update) {
  const std::string record = update.SerializeAsString();
  bytes_since_snapshot_ += static_cast<int64_t>(record.size()) + kRecordOverhead;
  SLUICE_RETURN_IF_ERROR(writer_->WriteRecord(record).WithContext(StrCat("journal ", path_)));
  ++appended_;
  return OkStatus();
}

Status Journal::Sync() {
  if (synced_ == appended_) return OkStatus();
  SLUICE_ASSIGN_OR_RETURN(const uint64_t written, Write());
  SLUICE_RETURN_IF_ERROR(Fsync());
  MarkSynced(written);
  return OkStatus();
}

Result<uint64_t> Journal::Write() {
  SLUICE_RETURN_IF_ERROR(writer_->Flush().WithContext(StrCat("journal ", path_)));
  return appended_;
}

Status Journal::Fsync() {
  if (::fsync(fd_) != 0) return InternalError("fsync of journal '", path_, "' failed: ", std::strerror(errno));
  return OkStatus();
}

void Journal::MarkSynced(uint64_t appended) { synced_ = std::max(synced_, appended); }

Status Journal::Compact(const std::vector<StateUpdate>& snapshot) {
  if (synced_ != appended_) {
    return FailedPreconditionError("journal ", path_, " has updates not synced: compaction needs none");
  }
  // The next file first: until the snapshot is in place it replays after
  // the current one, and after, after the snapshot; either way in order.
  const int64_t n = index_ + 1;
  SLUICE_ASSIGN_OR_RETURN(File file, OpenFile(dir_, n));
  CloseFile();
  index_ = n;
  path_ = std::move(file.path);
  writer_ = std::move(file.writer);
  fd_ = file.fd;
  SLUICE_RETURN_IF_ERROR(WriteSnapshot(dir_, n, snapshot));
  bytes_since_snapshot_ = 0;
  SLUICE_ASSIGN_OR_RETURN(WorkFiles files, ListWorkFiles(dir_));
  for (const auto& [m, path] : files.journals) {
    if (m < n) RemoveFile(path);
  }
  for (const auto& [m, path] : files.snapshots) {
    if (m < n) RemoveFile(path);
  }
  return OkStatus();
}

}  // namespace sluice::service

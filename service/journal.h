// Journal: the dispatcher's state changes (StateUpdate,
// service/dispatcher_state.proto) kept in its work directory, so that a
// restarted dispatcher carries on where it stopped.
//
// Files journal_<n> (a new n per start, so no file is ever appended to
// after a crash) hold one serialized StateUpdate per record, framed as
// TFRecord records (tfrecord/record_format.h: length, masked CRC32C of the
// length, data, masked CRC32C of the data). A damaged or truncated record
// ends its file (a write the crash cut short, never acknowledged) with a
// warning. Append buffers; Sync writes and fsyncs what was appended, so a
// caller that syncs once before answering a request pays one fsync per
// request, however many changes it made, and one that fsyncs on a thread of
// its own while requests go on (Write, Fsync, MarkSynced) pays one for all
// the requests that came meanwhile.
//
// Compaction: Compact writes a snapshot, the updates that rebuild the whole
// state (DispatcherState::Snapshot), as snapshot_<n> (SnapshotRecord
// records ending in its End) and goes on in journal_<n>; snapshot_<n>
// supersedes every file numbered below n. It is written as
// snapshot_<n>.tmp, fsynced, renamed and its directory fsynced before the
// older files are deleted, so a crash at any point leaves either the old
// files (and a stray .tmp) or the snapshot (and perhaps old files): both
// replay to the same state. Open replays the newest snapshot, then the
// journal files numbered from it on, in order, and deletes what the
// snapshot superseded. A snapshot was durable before it counted, so any
// damage in it (a bad record, a missing End, a count that differs) is a
// DataLoss error naming the file and byte offset, never skipped.
// Thread safety: used by one thread at a time (the dispatcher's lock), but
// for Fsync (above).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/service/dispatcher_state.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice::service {

class Journal {
 public:
  // Creates `dir` if needed, reads the updates of its newest snapshot and
  // the journal files after it into *replayed, and opens the next file for
  // writing.
  static Result<std::unique_ptr<Journal>> Open(const std::string& dir, std::vector<StateUpdate>* replayed);
  ~Journal();

  Status Append(const StateUpdate& update);
  // Makes every appended update durable (write + fsync); nothing to do
  // when none was appended since the last Sync.
  Status Sync();

  // Sync in steps, for a caller that makes updates durable outside its lock
  // while others append (a group commit): Write hands every appended update
  // to the file and returns how many have been appended in all; Fsync makes
  // what was written durable; MarkSynced(n) records that the first n
  // updates are. Fsync may run on another thread beside Append, Write and
  // MarkSynced, never beside Compact or another Fsync.
  Result<uint64_t> Write();
  Status Fsync();
  void MarkSynced(uint64_t appended);
  // Updates appended since Open, and those known durable.
  uint64_t appended() const { return appended_; }
  uint64_t synced() const { return synced_; }

  // Bytes of journal records since the newest snapshot (those replayed by
  // Open included): what a compaction would drop.
  int64_t bytes_since_snapshot() const { return bytes_since_snapshot_; }
  // Replaces the files so far by `snapshot` (the updates that rebuild the
  // state every synced update led to) and opens the next journal file.
  // REQUIRES: everything appended synced (else FailedPrecondition). On an
  // error the journal stays whole and goes on, in the next file when it
  // could be opened.
  Status Compact(const std::vector<StateUpdate>& snapshot);

  const std::string& path() const { return path_; }

 private:
  struct File {
    std::string path;
    std::unique_ptr<RecordWriter> writer;
    int fd = -1;  // the same file, for fsync
  };
  Journal(std::string dir, int64_t index, File file, int64_t bytes_since_snapshot)
      : dir_(std::move(dir)),
        index_(index),
        path_(std::move(file.path)),
        writer_(std::move(file.writer)),
        fd_(file.fd),
        bytes_since_snapshot_(bytes_since_snapshot) {}
  // Creates journal_<n> in `dir` for writing.
  static Result<File> OpenFile(const std::string& dir, int64_t n);
  // Closes the current file, reporting a failure.
  void CloseFile();

  const std::string dir_;
  int64_t index_;  // of the file being written
  std::string path_;
  std::unique_ptr<RecordWriter> writer_;
  int fd_;
  uint64_t appended_ = 0;
  uint64_t synced_ = 0;
  int64_t bytes_since_snapshot_;
};

}  // namespace sluice::service

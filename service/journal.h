// Journal: the dispatcher's state changes (StateUpdate,
// service/dispatcher_state.proto) kept in its work directory, so that a
// restarted dispatcher carries on where it stopped.
//
// Files journal_<n> (n = 0, 1, ...; a new one per start, so no file is
// ever appended to after a crash) hold one serialized StateUpdate per
// record, framed as TFRecord records (tfrecord/record_format.h: length,
// masked CRC32C of the length, data, masked CRC32C of the data). Open
// replays every file in order; a damaged or truncated record ends its file
// (a write the crash cut short, never acknowledged) with a warning.
// Append buffers; Sync writes and fsyncs what was appended, so a caller
// that syncs once before answering a request pays one fsync per request,
// however many changes it made.
// Thread safety: used by one thread at a time (the dispatcher's lock).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/core/status.h"
#include "sluice/service/dispatcher_state.pb.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice::service {

class Journal {
 public:
  // Creates `dir` if needed, reads the updates of its journal files into
  // *replayed, and opens the next file for writing.
  static Result<std::unique_ptr<Journal>> Open(const std::string& dir, std::vector<StateUpdate>* replayed);
  ~Journal();

  Status Append(const StateUpdate& update);
  // Makes every appended update durable (write + fsync); nothing to do
  // when none was appended since the last Sync.
  Status Sync();

  const std::string& path() const { return path_; }

 private:
  Journal(std::string path, std::unique_ptr<RecordWriter> writer, int fd)
      : path_(std::move(path)), writer_(std::move(writer)), fd_(fd) {}

  const std::string path_;
  const std::unique_ptr<RecordWriter> writer_;
  const int fd_;  // the same file, for fsync
  bool dirty_ = false;
};

}  // namespace sluice::service

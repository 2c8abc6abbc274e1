// SnapshotReader: the elements of a finished snapshot (its checked
// manifest, dataset/snapshot_format.h), in order: shards read round robin
// (or, in BY_SHARD order, shard 0 to its end, then shard 1, ...), each
// shard's segments one after another, every record's CRCs verified.
//
// Damage is an error naming the file and byte offset: a segment whose size
// differs from the manifest's (truncated or grown), a damaged record
// (tfrecord/record_reader.h), a record that is not an element of the spec
// (dataset/element_record.h), a segment with fewer or more records than
// the manifest counts. The error is that element's; the next call goes on
// with the following element (a segment that is missing, has another size
// or ended early fails for each element it was to hold).
// Records are read as views of the read chunk; records larger than it, and
// every decoded element while it is allocated, are charged to the RAM
// budget. Strings of the elements view the chunk (Unpinned by ops that
// keep elements).
// Runs: when every component's shape is known (AllowsRecordRuns), records
// are decoded up to kReadAhead at a time into one [k, ...] tensor per component,
// and Next hands out its rows (views) while NextRun hands over slices, as
// the tfrecord op does; an error met while reading ahead comes after the
// elements before it, as it would have.
// A reader saves its position (the next element, and per shard the segment
// and byte offset, and the rows read ahead) and a fresh reader of the same
// snapshot restores it.
// Thread safety: a reader is used by one thread at a time.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/snapshot_manifest.pb.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {

struct SnapshotReadOptions {
  // The largest record accepted (RecordReaderOptions::max_record_bytes).
  int64_t max_record_bytes = int64_t{256} << 20;
  // Read buffer per shard, bytes.
  size_t buffer_size = 256 << 10;
};

class SnapshotReader {
 public:
  // REQUIRES: `manifest` passed ReadManifest's checks; `spec` is its
  // element spec.
  SnapshotReader(std::string directory, std::shared_ptr<const snapshot::Manifest> manifest, ElementSpec spec,
                 SnapshotReadOptions options, std::shared_ptr<Runtime> runtime);
  ~SnapshotReader();

  // Records decoded at once by Next when the spec allows runs: at most
  // kReadAhead, and no more than kReadAheadBytes of elements (at least one).
  static constexpr int64_t kReadAhead = 64;
  static constexpr int64_t kReadAheadBytes = 256 << 10;

  // The next element; nullopt after the manifest's num_elements.
  Result<std::optional<Element>> Next();
  // Up to max_rows (>= 1) next elements as a run (Iterator::GetNextRun);
  // one element as a run of one row when the spec doesn't allow runs.
  Result<std::optional<Element>> NextRun(int64_t max_rows);

  void Save(IteratorStateWriter& writer) const;
  // REQUIRES: nothing read yet.
  Status Restore(IteratorStateReader& reader);

 private:
  struct ShardCursor {
    int segment = -1;                     // the open one, or the one before the next
    int64_t records = 0;                  // read from the open segment
    std::unique_ptr<RecordReader> reader;  // null between segments
    // Why the open segment can't be read (missing, another size): the error
    // of each of its elements.
    Status broken;
  };

  // Opens shard `s`'s next segment, checking its size.
  Status OpenSegment(size_t s);
  // Reads the next record of shard `s` and passes it to `decode`, whose
  // error is returned naming the record; checks that a segment ends where
  // the manifest says.
  Status ReadFrom(size_t s, const std::function<Status(std::string_view record)>& decode);
  // The next element, decoded alone.
  Result<std::optional<Element>> NextElement();
  // Up to max_rows elements decoded into one run; an error after some rows
  // ends the run and is kept in pending_.
  Result<std::optional<Element>> ReadRun(int64_t max_rows);
  // The next `rows` rows of ahead_ as a run (one row: an element), moving past them.
  Element TakeAhead(int64_t rows);
  // The shard holding element `index` of the snapshot.
  size_t ShardOf(int64_t index) const;
  RecordReaderOptions ReaderOptions() const;
  std::string SegmentPath(size_t s, int segment) const;
  Status Damage(size_t s, const Status& status) const;

  const std::string directory_;
  const std::shared_ptr<const snapshot::Manifest> manifest_;
  const ElementSpec spec_;
  const SnapshotReadOptions options_;
  const std::shared_ptr<Runtime> runtime_;
  std::vector<ShardCursor> shards_;
  // BY_SHARD order: per shard, the index one past its last element; empty
  // in ROUND_ROBIN order.
  std::vector<int64_t> shard_ends_;
  const bool runs_;                      // AllowsRecordRuns(spec_)
  const int64_t read_ahead_;             // rows Next decodes at once
  std::shared_ptr<const Buffer> owner_;  // of the record read last
  int64_t next_ = 0;                     // index of the next element to read from disk
  Element ahead_;                        // a run read ahead; empty when none
  int64_t ahead_rows_ = 0;               // its rows
  int64_t ahead_next_ = 0;               // the next of them to hand out
  Status pending_;                       // an error that ended the last run
};

}  // namespace sluice

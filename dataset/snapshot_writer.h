// SnapshotWriter: writes elements into a snapshot directory's segment files
// (dataset/snapshot_format.h) and, once they are all written and synced,
// its manifest. In ROUND_ROBIN order Write puts element i into shard
// i % shard_count, so that reading the shards round robin gives the
// elements back in order; in BY_SHARD order WriteToShard puts each element
// into the shard it is given, and a reader gives shard 0's elements back,
// then shard 1's, ... (the shards are one past the largest index given, at
// least shard_count).
//
// Segments: each shard's elements go to one file until EndSegments closes
// it (an iterator being saved does, so that what was written so far is a
// set of whole files that a restored iterator can keep); the next element
// opens the shard's next segment. Segment files are named
// "<run>/shard-<s>-<k>" inside the directory, run being "" or a
// subdirectory, so that runs writing the same directory at once don't touch
// each other's files. Finish removes the files of the run that the
// manifest doesn't name (segments a saved iterator's process wrote after
// the save it was restored from).
// Thread safety: a writer is used by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/dataset/snapshot_manifest.pb.h"
#include "sluice/tfrecord/compression.h"
#include "sluice/tfrecord/record_writer.h"

namespace sluice {

struct SnapshotWriterOptions {
  Compression compression = Compression::kNone;
  int64_t shard_count = 1;  // 1 to kMaxSnapshotShards
  snapshot::Manifest::Order order = snapshot::Manifest::ROUND_ROBIN;
  // Recorded in the manifest: the producing pipeline's SpecFingerprint and
  // DeterministicSpecBytes ("" when it has none).
  std::string fingerprint;
  std::string pipeline_spec;
};

class SnapshotWriter {
 public:
  // Creates `directory` (and `run` inside it) when missing.
  static Result<std::unique_ptr<SnapshotWriter>> Create(std::string directory, std::string run, ElementSpec spec,
                                                        SnapshotWriterOptions options);
  // Continues the run that `written` describes (a manifest of the segments
  // EndSegments had closed, as Progress returned it): FailedPrecondition when
  // a file it names is missing or has another size.
  static Result<std::unique_ptr<SnapshotWriter>> Resume(std::string directory, std::string run, ElementSpec spec,
                                                        SnapshotWriterOptions options,
                                                        const snapshot::Manifest& written);
  ~SnapshotWriter();

  // REQUIRES: ROUND_ROBIN order.
  Status Write(const Element& element);
  // Appends `element` to shard `shard`: InvalidArgument unless it is 0 to
  // kMaxSnapshotShards - 1. REQUIRES: BY_SHARD order; not resumed.
  Status WriteToShard(const Element& element, int64_t shard);
  // Closes the open segment files (whole, compressed streams finished).
  Status EndSegments();
  // The segments closed so far, as a manifest (num_elements = elements in
  // them). REQUIRES: EndSegments since the last Write.
  const snapshot::Manifest& Progress() const { return manifest_; }
  // Closes and syncs every segment, then writes the manifest. No Write after.
  Status Finish();

  const std::string& directory() const { return directory_; }
  const std::string& run() const { return run_; }

 private:
  SnapshotWriter(std::string directory, std::string run, ElementSpec spec, SnapshotWriterOptions options);

  // Encodes `element` into shard `shard`'s open segment, opening it first
  // when none is.
  Status Append(const Element& element, size_t shard);
  Status CloseSegment(size_t shard);
  // Where in the directory segment k of shard s goes.
  std::string SegmentFile(size_t shard, int64_t k) const;

  const std::string directory_;
  const std::string run_;
  const ElementSpec spec_;
  const SnapshotWriterOptions options_;
  snapshot::Manifest manifest_;  // segments closed, and the totals
  std::vector<std::unique_ptr<RecordWriter>> open_;  // per shard; null between segments
  std::vector<int64_t> open_elements_;               // records in each open segment
  int64_t elements_ = 0;                             // written, open segments included
  std::string record_;                               // reused for each element
  bool finished_ = false;
};

}  // namespace sluice

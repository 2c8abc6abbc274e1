// tfrecord: the records of TFRecord files (tfrecord/record_format.h), one
// scalar string element per record, unparsed (tf.data's TFRecordDataset).
//
// Records are not copied: each is a view of the reader's read chunk
// (core/tstring.h), kept alive by the element. GetNextRun hands over up to
// max_rows records as one [k] string tensor (what batch takes whole);
// GetNext reads 64 records ahead the same way and returns them one by one,
// so the counters below run up to 64 records ahead of the elements
// returned, and an error met while reading ahead comes after the records
// before it, as it would have.
//
// Files are read num_parallel_reads at a time, one record from each in turn
// (tf.data's order: interleave with cycle_length = num_parallel_reads,
// block_length = 1; a finished file's slot takes the next file when the
// cursor reaches it). With 1, files are read one after another; with more,
// by as many worker threads, each reading ahead (interleave's
// num_parallel_calls), in that same order.
//
// A damaged record (truncated, CRC mismatch) or a file that can't be opened
// is handled by `on_corrupt`:
// - kFail (default): a DataLoss (or NotFound) error for that element, naming
//   file, record index, byte offset and the failed check; the rest of that
//   file is skipped, as tf.data does, so ignore_errors() moves on;
// - kSkipRecord: the record is dropped and reading goes on after it (after a
//   length CRC mismatch, at the next valid header); logged at WARNING;
// - kStopFile: the rest of the file is dropped; logged at WARNING.
// Counters in the traversal's stats (dataset/stats.h): "tfrecord/records",
// "tfrecord/bytes", "tfrecord/corrupt_records", "tfrecord/skipped_bytes",
// "tfrecord/stopped_files".
//
// A saved iterator (dataset/iterator_state.h) holds the index of the open
// file, the byte offset of its next record and the records read ahead. A restore reopens the file
// and seeks there; a ZLIB/GZIP file can't seek, so it is decompressed from
// the start up to that offset (time proportional to the offset).
#pragma once

#include <string>
#include <vector>

#include "dataset/dataset.h"
#include "dataset/functions.h"
#include "tfrecord/compression.h"

namespace sluice {

enum class CorruptRecordPolicy { kFail, kSkipRecord, kStopFile };

// "fail", "skip_record", "stop_file".
std::string_view CorruptRecordPolicyName(CorruptRecordPolicy policy);
Result<CorruptRecordPolicy> ParseCorruptRecordPolicy(std::string_view name);

struct TFRecordOptions {
  std::vector<std::string> files;  // at least one
  Compression compression = Compression::kNone;
  // Read buffer per open file, bytes; kAutotune (-1) = 256 KiB, 0 = none.
  int64_t buffer_size = kAutotune;
  int64_t num_parallel_reads = 1;  // files open at once, >= 1
  CorruptRecordPolicy on_corrupt = CorruptRecordPolicy::kFail;
};

Result<DatasetPtr> MakeTFRecordDataset(TFRecordOptions options);

// interleave's function for list_files -> interleave(tfrecord): the records
// of the files an element names (a string scalar or vector), read with
// `options` (whose `files` must be empty). Serializable.
Result<DatasetFunctionPtr> MakeTFRecordFunction(TFRecordOptions options);

}  // namespace sluice

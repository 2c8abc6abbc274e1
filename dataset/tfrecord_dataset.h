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
// Files are read num_parallel_reads at a time (at most as many as there
// are files: more could only be empty slots), one record from each in turn
// (tf.data's order: interleave with cycle_length = num_parallel_reads,
// block_length = 1; a finished file's slot takes the next file when the
// cursor reaches it). With 1, files are read one after another; with more,
// by as many worker threads, each reading ahead (interleave's
// num_parallel_calls), in that same order.
//
// Lengths from a file are untrusted (tfrecord/record_reader.h): a record
// over max_record_bytes is a DataLoss error, and one larger than the read
// buffer is charged to the traversal's RAM budget (dataset/ram_budget.h)
// before its bytes are read, a ResourceExhausted error if they don't fit
// in what is left; the charge ends when the record is handed out (it is
// then an element, charged by whoever buffers it). The scan for the next
// header after a damaged one stops after max_record_bytes + 16 bytes, a
// DataLoss error naming the range, and the rest of that file is dropped.
//
// A damaged record (truncated, CRC mismatch, too long) or a file that can't
// be opened is handled by `on_corrupt`:
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

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

namespace spec {
class TFRecord;
}  // namespace spec

enum class CorruptRecordPolicy { kFail, kSkipRecord, kStopFile };

// "fail", "skip_record", "stop_file".
std::string_view CorruptRecordPolicyName(CorruptRecordPolicy policy);
Result<CorruptRecordPolicy> ParseCorruptRecordPolicy(std::string_view name);

struct TFRecordOptions {
  // The bounds of buffer_size and max_record_bytes.
  static constexpr int64_t kMaxBufferSize = int64_t{1} << 30;      // 1 GiB
  static constexpr int64_t kMaxMaxRecordBytes = int64_t{16} << 30;  // 16 GiB

  std::vector<std::string> files;  // at least one
  Compression compression = Compression::kNone;
  // Read buffer per open file, bytes, at most kMaxBufferSize; kAutotune (-1)
  // = 256 KiB, 0 = none. It is allocated as the file needs it, not up front.
  int64_t buffer_size = kAutotune;
  // Files open at once, >= 1; more than there are files reads them all at once.
  int64_t num_parallel_reads = 1;
  CorruptRecordPolicy on_corrupt = CorruptRecordPolicy::kFail;
  // The largest record accepted, in data bytes: 1..kMaxMaxRecordBytes,
  // default 256 MiB (RecordReaderOptions::kDefaultMaxRecordBytes).
  int64_t max_record_bytes = int64_t{256} << 20;
};

Result<DatasetPtr> MakeTFRecordDataset(TFRecordOptions options);

// The tfrecord node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> TFRecordDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);
// The options a spec's TFRecord message holds: a tfrecord node's, or a
// TFRECORD element_source's (whose files come from the elements).
Result<TFRecordOptions> TFRecordOptionsFromSpec(const spec::TFRecord& node);

// interleave's function for list_files -> interleave(tfrecord): the records
// of the files an element names (a string scalar or vector), read with
// `options` (whose `files` must be empty). Serializable.
Result<DatasetFunctionPtr> MakeTFRecordFunction(TFRecordOptions options);

}  // namespace sluice

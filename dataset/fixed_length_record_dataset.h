// fixed_length_record: the records of binary files of fixed-length records,
// one scalar string element per record (tf.data's FixedLengthRecordDataset):
// each file's first header_bytes and last footer_bytes are skipped, and the
// bytes between are records of record_bytes each (CIFAR-10's binary
// batches: record_bytes 3073, a label byte then 32x32x3 pixels).
// `decode_raw`-style parsing follows as a map (a slice of the string).
//
// Records are not copied: each is a view of the reader's read chunk
// (core/tstring.h), kept alive by the element. GetNextRun hands over up to
// max_rows records as one [k] string tensor (what batch takes whole);
// GetNext reads 64 records ahead the same way and returns them one by one.
//
// Files are read num_parallel_reads at a time (at most as many as there are
// files), one record from each in turn, as tf.data does
// (dataset/parallel_file_reads.h); with 1, one after another.
//
// Lengths are untrusted: a file whose body is not a whole number of records
// is an InvalidArgument error naming the file, its body length and the
// record length, as tf.data's (before the file's first record when it is
// uncompressed; after its whole records when it is ZLIB/GZIP, whose length
// is known only at its end); reading goes on with the next file. The read
// buffer grows past buffer_size for records larger than it only as far as
// the traversal's RAM budget allows (dataset/ram_budget.h), a
// ResourceExhausted error for that file otherwise. A file that can't be
// opened is a NotFound (or other) error for that element, and the next file
// follows, so ignore_errors() moves on.
// Counters in the traversal's stats: "fixed_length_record/records",
// "fixed_length_record/bytes".
//
// A saved iterator holds the index of the open file, the byte offset of its
// next record and the records read ahead. A restore reopens the file and
// seeks there; a ZLIB/GZIP file is decompressed from its start up to it.
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

namespace spec {
class FixedLengthRecord;
}  // namespace spec

struct FixedLengthRecordOptions {
  // The bounds of buffer_size, record_bytes and footer_bytes (which are
  // buffered), and header_bytes (which is passed over).
  static constexpr int64_t kMaxBufferSize = int64_t{1} << 30;   // 1 GiB
  static constexpr int64_t kMaxRecordBytes = int64_t{4} << 30;  // 4 GiB
  static constexpr int64_t kMaxHeaderBytes = int64_t{1} << 62;

  std::vector<std::string> files;  // at least one
  int64_t record_bytes = 0;        // 1..kMaxRecordBytes
  int64_t header_bytes = 0;        // 0..kMaxHeaderBytes
  int64_t footer_bytes = 0;        // 0..kMaxRecordBytes
  Compression compression = Compression::kNone;
  // Read buffer per open file, 1..kMaxBufferSize bytes; kAutotune (-1) = 256 KiB.
  int64_t buffer_size = kAutotune;
  // Files open at once, >= 1; more than there are files reads them all at once.
  int64_t num_parallel_reads = 1;
};

Result<DatasetPtr> MakeFixedLengthRecordDataset(FixedLengthRecordOptions options);

// The fixed_length_record node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> FixedLengthRecordDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);
// The options a spec's FixedLengthRecord message holds: a node's, or a
// FIXED_LENGTH_RECORD element_source's (whose files come from the elements).
Result<FixedLengthRecordOptions> FixedLengthRecordOptionsFromSpec(const spec::FixedLengthRecord& node);

// interleave's function for list_files -> interleave(fixed_length_record):
// the records of the files an element names (a string scalar or vector),
// read with `options` (whose `files` must be empty). Serializable.
Result<DatasetFunctionPtr> MakeFixedLengthRecordFunction(FixedLengthRecordOptions options);

}  // namespace sluice

// text_line: the lines of text files, one scalar string element per line
// (tf.data's TextLineDataset): without the '\n' and with every '\r'
// dropped, the last line kept without a '\n' unless it is empty
// (tfrecord/line_reader.h).
//
// Lines are not copied: each is a view of the reader's read chunk
// (core/tstring.h), kept alive by the element. GetNextRun hands over up to
// max_rows lines as one [k] string tensor (what batch takes whole); GetNext
// reads 64 lines ahead the same way and returns them one by one.
//
// Files are read num_parallel_reads at a time (at most as many as there are
// files), one line from each in turn, as tf.data does
// (dataset/parallel_file_reads.h); with 1, one after another.
//
// Lengths are untrusted: a line of more than max_line_bytes bytes is a
// DataLoss error naming the file, the line's index and byte offset, and
// reading goes on at the next line; the read buffer grows past buffer_size
// for a long line only as far as the traversal's RAM budget allows
// (dataset/ram_budget.h), a ResourceExhausted error otherwise. A file that
// can't be opened is a NotFound (or other) error for that element, and
// reading goes on with the next file, so ignore_errors() moves on.
// Counters in the traversal's stats: "text_line/lines", "text_line/bytes".
//
// A saved iterator holds the index of the open file, the byte offset of
// its next line and the lines read ahead. A restore reopens the file and
// seeks there; a ZLIB/GZIP file is decompressed from its start up to it.
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

namespace spec {
class TextLine;
}  // namespace spec

struct TextLineOptions {
  // The bounds of buffer_size and max_line_bytes.
  static constexpr int64_t kMaxBufferSize = int64_t{1} << 30;     // 1 GiB
  static constexpr int64_t kMaxMaxLineBytes = int64_t{16} << 30;  // 16 GiB

  std::vector<std::string> files;  // at least one
  Compression compression = Compression::kNone;
  // Read buffer per open file, 1..kMaxBufferSize bytes; kAutotune (-1) = 256 KiB.
  int64_t buffer_size = kAutotune;
  // Files open at once, >= 1; more than there are files reads them all at once.
  int64_t num_parallel_reads = 1;
  // The longest line accepted, in bytes: 1..kMaxMaxLineBytes, default 256 MiB.
  int64_t max_line_bytes = int64_t{256} << 20;
};

Result<DatasetPtr> MakeTextLineDataset(TextLineOptions options);

// The text_line node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> TextLineDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);
// The options a spec's TextLine message holds: a text_line node's, or a
// TEXT_LINE element_source's (whose files come from the elements).
Result<TextLineOptions> TextLineOptionsFromSpec(const spec::TextLine& node);

// interleave's function for list_files -> interleave(text_line): the lines
// of the files an element names (a string scalar or vector), read with
// `options` (whose `files` must be empty). Serializable.
Result<DatasetFunctionPtr> MakeTextLineFunction(TextLineOptions options);

}  // namespace sluice

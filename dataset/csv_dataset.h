// csv: the records of CSV files, one element of scalars per record
// (tf.data's experimental CsvDataset): a component per output column, of
// the dtype of its record_defaults entry. Records are split as
// tfrecord/csv_reader.h says (RFC 4180, tf.data's rules for line breaks
// and quotes); a field that is empty, or equal to na_value, takes its
// column's default, and is an error in a required column. Numbers may have
// spaces and tabs around them; float32 and float64 take "inf" and "nan" in
// any case; an integer out of its dtype's range is an error, never wrapped.
// String fields are views of the reader's chunk, kept alive by the element.
//
// Columns are all of a record's fields (select_cols and exclude_cols
// empty: a record must have exactly as many as there are defaults), those
// of select_cols (ascending column indices, one default each: a record
// must reach the last), or all but exclude_cols (ascending; the fields
// left must be as many as the defaults). header skips each file's first
// record. Records are read in runs: GetNextRun hands over up to max_rows
// records as one element of [k] columns (what batch takes whole); GetNext
// reads 64 ahead the same way and returns them one by one.
//
// Files are read num_parallel_reads at a time (dataset/parallel_file_reads.h),
// one record from each in turn; with 1, one after another.
//
// Errors name the file, the record's index and byte offset, the column and
// the field: a malformed record, a record with another number of fields, a
// missing required field or a field that is not a number of its column's
// dtype is a DataLoss error for that element, and reading goes on at the
// next record, so ignore_errors() moves on (tf.data raises InvalidArgument).
// A record of more than max_record_bytes bytes ends its file with a
// DataLoss error; the read buffer grows past buffer_size for a long record
// only as far as the traversal's RAM budget allows (ResourceExhausted). A
// file that can't be opened is an error for that element.
// Counters in the traversal's stats: "csv/records", "csv/bytes".
//
// A saved iterator holds the index of the open file, the byte offset of its
// next record and the records read ahead; a restore reopens the file and
// seeks there (a ZLIB/GZIP file is decompressed up to it).
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/compression.h"

namespace sluice {

namespace spec {
class Csv;
}  // namespace spec

struct CsvOptions {
  static constexpr int64_t kMaxBufferSize = int64_t{1} << 30;       // 1 GiB
  static constexpr int64_t kMaxMaxRecordBytes = int64_t{16} << 30;  // 16 GiB
  static constexpr int64_t kMaxColumns = 1 << 16;                   // outputs, and column indices

  std::vector<std::string> files;  // at least one
  // One per output column, in column order: a scalar of the column's dtype
  // (float32, float64, int32, int64 or string), its default, or an empty
  // vector of that dtype (CsvRequired) for a column that must have a value.
  std::vector<Tensor> record_defaults;
  // The components' names: none (positional components) or one per column.
  std::vector<std::string> column_names;
  Compression compression = Compression::kNone;
  // Read buffer per open file, 1..kMaxBufferSize bytes; kAutotune (-1) = 256 KiB.
  int64_t buffer_size = kAutotune;
  // Files open at once, >= 1; more than there are files reads them all at once.
  int64_t num_parallel_reads = 1;
  bool header = false;     // each file's first record is a header, skipped
  char field_delim = ',';  // not '"', '\n' or '\r'
  bool use_quote_delim = true;
  std::string na_value;               // a field that counts as missing, besides ""
  std::vector<int64_t> select_cols;   // ascending column indices; at most one of these two
  std::vector<int64_t> exclude_cols;  // ascending column indices
  // The longest record accepted, in bytes: 1..kMaxMaxRecordBytes, default 256 MiB.
  int64_t max_record_bytes = int64_t{256} << 20;
};

// The record_defaults entry of a required column: an empty vector.
Tensor CsvRequired(DType dtype);

Result<DatasetPtr> MakeCsvDataset(CsvOptions options);

// The csv node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> CsvDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);
// The options a spec's Csv message holds: a csv node's, or a CSV
// element_source's (whose files come from the elements).
Result<CsvOptions> CsvOptionsFromSpec(const spec::Csv& node);

// interleave's function for list_files -> interleave(csv): the records of
// the files an element names (a string scalar or vector), read with
// `options` (whose `files` must be empty). Serializable.
Result<DatasetFunctionPtr> MakeCsvFunction(CsvOptions options);

}  // namespace sluice

// FileSource: what a file source that reads in runs (text_line, csv,
// fixed_length_record) tells the dataset and the interleave function they
// share. The dataset reads its files one after another with the source's
// iterator (dataset/file_runs_iterator.h), or num_parallel_reads at a time
// in tf.data's order (dataset/parallel_file_reads.h); the function reads
// the files each element names (list_files -> interleave), and writes the
// source's element_source kind.
// Thread safety: sources are immutable.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

class FileSource {
 public:
  // The read buffer per open file: at most kMaxBufferSize bytes, kAutotune
  // for kDefaultBufferSize.
  static constexpr int64_t kMaxBufferSize = int64_t{1} << 30;  // 1 GiB
  static constexpr int64_t kDefaultBufferSize = 256 << 10;

  virtual ~FileSource() = default;
  // The op's name ("text_line"), also its spec field and its errors' prefix.
  virtual std::string_view op_name() const = 0;
  virtual const ElementSpec& element_spec() const = 0;
  virtual int64_t num_parallel_reads() const = 0;
  // The options for describe (after "files=N, ").
  virtual std::string DebugParams() const = 0;
  // An iterator over `files`, one after another.
  virtual std::unique_ptr<Iterator> NewIterator(std::vector<std::string> files, const IteratorContext& ctx) const = 0;
  // Appends the source's node, reading `files`, to `pipeline`.
  virtual void ToSpec(std::vector<std::string> files, spec::Pipeline* pipeline) const = 0;
  // Appends the element_source that reads the files elements name.
  virtual void ToElementSourceSpec(spec::Pipeline* function) const = 0;
};

// InvalidArgument, naming `op`, unless num_parallel_reads >= 1 and
// buffer_size is kAutotune or 1..FileSource::kMaxBufferSize.
Status CheckFileReadOptions(std::string_view op, int64_t buffer_size, int64_t num_parallel_reads);
// buffer_size in bytes, kAutotune resolved.
size_t ReadBufferBytes(int64_t buffer_size);

// The dataset of `source` over `files` (at least one; no empty names).
Result<DatasetPtr> MakeFileSourceDataset(std::vector<std::string> files, std::shared_ptr<const FileSource> source);

// interleave's function: the dataset of `source` over the files an element
// names (a string scalar or vector). Serializable.
DatasetFunctionPtr MakeFileSourceFunction(std::shared_ptr<const FileSource> source);

}  // namespace sluice

#include "sluice/dataset/tfrecord_dataset.h"

#include <algorithm>
#include <array>
#include <utility>

#include "sluice/core/logging.h"
#include "sluice/dataset/functions.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/parallel_file_reads.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/runtime.h"
#include "sluice/tfrecord/record_reader.h"

namespace sluice {
namespace {

constexpr size_t kDefaultBufferSize = 256 << 10;

void TFRecordOptionsToSpec(const TFRecordOptions& options, spec::TFRecord* node) {
  for (const std::string& file : options.files) node->add_files(file);
  node->set_compression(std::string(CompressionName(options.compression)));
  node->set_buffer_size(options.buffer_size);
  node->set_num_parallel_reads(options.num_parallel_reads);
  node->set_on_corrupt(std::string(CorruptRecordPolicyName(options.on_corrupt)));
  node->set_max_record_bytes(options.max_record_bytes);
}

static_assert(TFRecordOptions{}.max_record_bytes == RecordReaderOptions::kDefaultMaxRecordBytes);

const ElementSpec& RecordSpec() {
  static const ElementSpec spec{{"", DType::kString, Shape{}}};
  return spec;
}

// The records of `files`, one file after another, as views of the
// reader's chunks (RecordReader::ReadRecord(std::string_view*, owner)): a
// run of records is one [k] string tensor whose buffer keeps the chunks
// alive. GetNext reads kReadAhead records at a time and hands out rows of
// that run, so that one element costs a view, not an allocation. A damaged
// record is handled by the policy; ReadOne returns what remains for the
// caller.
class FilesIterator final : public Iterator {
 public:
  // Records read at once by GetNext.
  static constexpr int64_t kReadAhead = 64;

  FilesIterator(std::vector<std::string> files, std::shared_ptr<const TFRecordOptions> options,
                const IteratorContext& ctx)
      : files_(std::move(files)), options_(*options), keep_options_(std::move(options)), stats_(ctx.stats),
        runtime_(ctx.runtime) {}
  ~FilesIterator() override { CloseFile(); }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (next_row_ == read_ahead_rows_) [[unlikely]] return ReadAheadThenNextRow();
    return NextRow();
  }

  // Up to max_rows records in one [k] string tensor: what GetNext read ahead
  // first, then fresh runs.
  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    if (next_row_ < read_ahead_rows_) {
      const int64_t end = std::min(read_ahead_rows_, next_row_ + max_rows);
      Tensor rows = read_ahead_.Slice(next_row_, end);
      next_row_ = end;
      if (next_row_ == read_ahead_rows_) SetReadAhead(Tensor());  // rows holds the run now
      return Element{std::move(rows)};
    }
    SLUICE_ASSIGN_OR_RETURN(std::optional<Tensor> run, ReadRun(max_rows));
    if (!run) return std::nullopt;
    return Element{std::move(*run)};
  }

  // The next file to open and, in the open one, the reader's position: a
  // restore reopens that file and seeks to the next record (a compressed
  // file is decompressed up to it).
  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("next_file", static_cast<int64_t>(next_file_));
    // Records read ahead come before the reader's position, and before pending_.
    writer.WriteTensor("read_ahead", read_ahead_rows_ > 0 ? read_ahead_.Slice(next_row_, read_ahead_rows_)
                                                          : Tensor::Allocate(DType::kString, Shape{0}));
    writer.WriteStatus("pending", pending_);
    writer.WriteBool("open", reader_ != nullptr);
    if (reader_ == nullptr) return OkStatus();
    const RecordReader::Position position = reader_->position();
    writer.WriteInt("offset", static_cast<int64_t>(position.offset));
    writer.WriteInt("record_index", position.record_index);
    writer.WriteInt("reader_state", static_cast<int64_t>(position.state));
    return OkStatus();
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    CloseFile();
    SLUICE_ASSIGN_OR_RETURN(int64_t next_file, reader.ReadInt("next_file", 0, static_cast<int64_t>(files_.size())));
    next_file_ = static_cast<size_t>(next_file);
    SLUICE_ASSIGN_OR_RETURN(Tensor read_ahead, reader.ReadTensor("read_ahead"));
    if (read_ahead.dtype() != DType::kString || read_ahead.rank() != 1) {
      return DataLossError("iterator state: tfrecord read_ahead is ", read_ahead.dtype(), read_ahead.shape(),
                           ", not a string vector");
    }
    SetReadAhead(std::move(read_ahead));
    SLUICE_RETURN_IF_ERROR(reader.ReadStatus("pending", &pending_));
    SLUICE_ASSIGN_OR_RETURN(bool open, reader.ReadBool("open"));
    if (!open) return OkStatus();
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    RecordReader::Position position;
    SLUICE_ASSIGN_OR_RETURN(int64_t offset, reader.ReadInt("offset", 0, kMax));
    SLUICE_ASSIGN_OR_RETURN(position.record_index, reader.ReadInt("record_index", -1, kMax));
    SLUICE_ASSIGN_OR_RETURN(int64_t state, reader.ReadInt("reader_state", 0, 2));
    if (next_file_ == 0) return DataLossError("iterator state: tfrecord has an open file before the first");
    position.offset = static_cast<uint64_t>(offset);
    position.state = static_cast<RecordReader::State>(state);
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> file,
                            RecordReader::Open(files_[next_file_ - 1], ReaderOptions()));
    SLUICE_RETURN_IF_ERROR(file->Seek(position));
    reader_ = std::move(file);
    return OkStatus();
  }

 private:
  // The next row of read_ahead_ as an element, built where it is returned.
  // REQUIRES: next_row_ < read_ahead_rows_.
  Result<std::optional<Element>> NextRow() {
    Result<std::optional<Element>> next(std::in_place, std::in_place);
    (*next)->components.push_back_row(read_ahead_, next_row_++);
    return next;
  }
  // Reads the next run ahead and returns its first row. Out of line, so
  // that the per-row path above keeps a small stack frame.
  [[gnu::noinline]] Result<std::optional<Element>> ReadAheadThenNextRow() {
    // Let go of the last run (and its chunks, which the reader may then
    // reuse) before reading the next.
    SetReadAhead(Tensor());
    SLUICE_ASSIGN_OR_RETURN(std::optional<Tensor> run, ReadRun(kReadAhead));
    if (!run) return std::nullopt;
    SetReadAhead(std::move(*run));
    return NextRow();
  }
  // A run (or an invalid tensor, for none) whose rows GetNext hands out.
  void SetReadAhead(Tensor run) {
    read_ahead_ = std::move(run);
    read_ahead_rows_ = read_ahead_.valid() ? read_ahead_.dim(0) : 0;
    next_row_ = 0;
  }

  // Up to max_rows records as views in one [k] string tensor, k >= 1;
  // nullopt at the end. An error after some records ends the run and is
  // returned by the next call.
  Result<std::optional<Tensor>> ReadRun(int64_t max_rows) {
    if (!pending_.ok()) return std::exchange(pending_, OkStatus());
    Tensor records = Tensor::Allocate(DType::kString, Shape{max_rows});
    TString* out = records.mutable_data<TString>();
    const Buffer* kept = nullptr;  // the backing added last
    int64_t count = 0;
    std::string_view record;
    while (count < max_rows) {
      // Records whole in the reader's chunk come many to a call.
      if (reader_ != nullptr) {
        std::array<std::string_view, kReadAhead> views;
        const size_t n = reader_->ReadRecordsInChunk(
            views.data(), static_cast<size_t>(std::min<int64_t>(max_rows - count, kReadAhead)), &owner_);
        if (n > 0) {
          for (size_t i = 0; i < n; ++i) {
            out[count++] = TString::View(views[i]);
            bytes_ += static_cast<int64_t>(views[i].size());
          }
          records_ += static_cast<int64_t>(n);
          if (owner_.get() != kept) {
            records.AddBacking(owner_);
            kept = owner_.get();
          }
          continue;
        }
      }
      Result<bool> got = ReadOne(&record);
      if (!got.ok()) {
        if (count == 0) return got.status();
        pending_ = got.status();
        break;
      }
      if (!*got) break;
      out[count++] = TString::View(record);
      if (owner_.get() != kept) {
        records.AddBacking(owner_);
        kept = owner_.get();
      }
    }
    if (count == 0) return std::nullopt;
    return count == max_rows ? records : records.Slice(0, count);
  }

  Result<bool> ReadOne(std::string_view* record) {
    while (true) {
      if (reader_ == nullptr) {
        if (next_file_ == files_.size()) return false;
        Result<std::unique_ptr<RecordReader>> reader = RecordReader::Open(files_[next_file_++], ReaderOptions());
        if (!reader.ok()) {
          if (options_.on_corrupt == CorruptRecordPolicy::kFail) return reader.status();
          Damaged(reader.status());
          continue;
        }
        reader_ = std::move(*reader);
      }
      Result<bool> got = reader_->ReadRecord(record, &owner_);
      if (got.ok() && *got) {
        ++records_;
        bytes_ += static_cast<int64_t>(record->size());
        return true;
      }
      if (got.ok()) {
        CloseFile();
        continue;
      }
      switch (options_.on_corrupt) {
        case CorruptRecordPolicy::kFail:
          // As tf.data: the rest of the file is skipped, the error returned.
          stats_->Add("tfrecord/corrupt_records", 1);
          CloseFile();
          return got.status();
        case CorruptRecordPolicy::kSkipRecord:
          Damaged(got.status());
          break;
        case CorruptRecordPolicy::kStopFile:
          Damaged(got.status());
          stats_->Add("tfrecord/stopped_files", 1);
          CloseFile();
          break;
      }
    }
  }

  RecordReaderOptions ReaderOptions() const {
    return {.compression = options_.compression,
            .buffer_size = options_.buffer_size >= 0 ? static_cast<size_t>(options_.buffer_size)
                                                     : kDefaultBufferSize,
            .max_record_bytes = static_cast<uint64_t>(options_.max_record_bytes),
            .charge = [runtime = runtime_](int64_t bytes) {
              return ChargeRecordBytes(runtime->ram_budget(), bytes);
            }};
  }
  void Damaged(const Status& status) {
    stats_->Add("tfrecord/corrupt_records", 1);
    SLUICE_LOG(WARNING) << "tfrecord: "
                        << (options_.on_corrupt == CorruptRecordPolicy::kSkipRecord
                                ? "skipping a damaged record: "
                                : "stopping the file: ")
                        << status;
  }
  // Counters are added per file, not per record.
  void CloseFile() {
    if (records_ > 0) stats_->Add("tfrecord/records", std::exchange(records_, 0));
    if (bytes_ > 0) stats_->Add("tfrecord/bytes", std::exchange(bytes_, 0));
    if (reader_ != nullptr && reader_->bytes_skipped() > 0) {
      stats_->Add("tfrecord/skipped_bytes", static_cast<int64_t>(reader_->bytes_skipped()));
    }
    reader_.reset();
  }

  const std::vector<std::string> files_;
  const TFRecordOptions& options_;
  const std::shared_ptr<const TFRecordOptions> keep_options_;  // owns options_
  const std::shared_ptr<StatsCounters> stats_;
  const std::shared_ptr<Runtime> runtime_;  // large records are charged to its RAM budget
  size_t next_file_ = 0;
  std::unique_ptr<RecordReader> reader_;  // of files_[next_file_ - 1]
  std::shared_ptr<const Buffer> owner_;   // of the record read last
  Tensor read_ahead_;                     // rows for GetNext; invalid when none
  int64_t read_ahead_rows_ = 0;           // its dim(0), 0 when invalid
  int64_t next_row_ = 0;                  // of read_ahead_, the next to return
  Status pending_;                        // an error that ended the last run
  int64_t records_ = 0;  // of the open file, not yet in stats_
  int64_t bytes_ = 0;
};

// One file as a dataset: what the interleave plan maps each file name to.
class FileDataset final : public Dataset {
 public:
  FileDataset(std::string path, std::shared_ptr<const TFRecordOptions> options)
      : Dataset(RecordSpec(), kUnknownCardinality), path_(std::move(path)), options_(std::move(options)) {}

  std::string_view op_name() const override { return "tfrecord_file"; }
  std::string DebugParams() const override { return path_; }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    return std::make_unique<FilesIterator>(std::vector<std::string>{path_}, options_, ctx);
  }
  Status ToSpec(spec::Pipeline*) const override {
    return InternalError("tfrecord_file is part of tfrecord and never written alone");
  }

 private:
  const std::string path_;
  const std::shared_ptr<const TFRecordOptions> options_;
};

class TFRecordDataset final : public Dataset {
 public:
  TFRecordDataset(std::shared_ptr<const TFRecordOptions> options, DatasetPtr plan)
      : Dataset(RecordSpec(), kUnknownCardinality), options_(std::move(options)), plan_(std::move(plan)) {}

  std::string_view op_name() const override { return "tfrecord"; }
  std::string DebugParams() const override {
    return StrCat("files=", options_->files.size(), ", compression=", CompressionName(options_->compression),
                  ", buffer_size=", options_->buffer_size, ", num_parallel_reads=",
                  options_->num_parallel_reads, ", on_corrupt=", CorruptRecordPolicyName(options_->on_corrupt),
                  ", max_record_bytes=", options_->max_record_bytes);
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    if (plan_ == nullptr) return std::make_unique<FilesIterator>(options_->files, options_, ctx);
    return plan_->NewIterator(ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    TFRecordOptionsToSpec(*options_, pipeline->add_ops()->mutable_tfrecord());
    return OkStatus();
  }

 private:
  const std::shared_ptr<const TFRecordOptions> options_;
  // For num_parallel_reads > 1: from_slices(files) ->
  // interleave(file -> FileDataset, num_parallel_reads, 1); null for 1.
  const DatasetPtr plan_;
};

// The options other than the files, as both factories check them.
Status CheckReadOptions(const TFRecordOptions& options) {
  if (options.num_parallel_reads < 1) {
    return InvalidArgumentError("tfrecord: num_parallel_reads must be >= 1, got ",
                                options.num_parallel_reads);
  }
  if (options.buffer_size < kAutotune || options.buffer_size > TFRecordOptions::kMaxBufferSize) {
    return InvalidArgumentError("tfrecord: buffer_size must be 0 (no buffering) to ", TFRecordOptions::kMaxBufferSize,
                                " bytes, or kAutotune, got ", options.buffer_size);
  }
  if (options.max_record_bytes < 1 || options.max_record_bytes > TFRecordOptions::kMaxMaxRecordBytes) {
    return InvalidArgumentError("tfrecord: max_record_bytes must be 1 to ", TFRecordOptions::kMaxMaxRecordBytes,
                                " bytes, got ", options.max_record_bytes);
  }
  return OkStatus();
}

class TFRecordFunction final : public DatasetFunction {
 public:
  explicit TFRecordFunction(TFRecordOptions options) : options_(std::move(options)) {}

  std::string name() const override { return "tfrecord(files of the element)"; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    if (input.size() != 1 || input[0].dtype != DType::kString || input[0].shape.rank() > 1) {
      return InvalidArgumentError(name(), ": needs elements that are one string scalar or vector "
                                  "(file names), got ", input);
    }
    return RecordSpec();
  }
  Result<DatasetPtr> Apply(const Element& element) const override {
    TFRecordOptions options = options_;
    const TString* names = element[0].data<TString>();
    options.files.clear();
    for (int64_t i = 0; i < element[0].NumElements(); ++i) options.files.emplace_back(names[i]);
    return MakeTFRecordDataset(std::move(options));
  }
  Status ToSpec(spec::Pipeline* out) const override {
    auto* source = out->add_ops()->mutable_element_source();
    source->set_kind(spec::ElementSource::TFRECORD);
    TFRecordOptionsToSpec(options_, source->mutable_tfrecord());
    return OkStatus();
  }

 private:
  const TFRecordOptions options_;
};

}  // namespace

Result<DatasetFunctionPtr> MakeTFRecordFunction(TFRecordOptions options) {
  if (!options.files.empty()) {
    return InvalidArgumentError("tfrecord function: files come from the elements; got ",
                                options.files.size(), " in the options");
  }
  SLUICE_RETURN_IF_ERROR(CheckReadOptions(options));
  return DatasetFunctionPtr(std::make_shared<TFRecordFunction>(std::move(options)));
}

std::string_view CorruptRecordPolicyName(CorruptRecordPolicy policy) {
  switch (policy) {
    case CorruptRecordPolicy::kFail: return "fail";
    case CorruptRecordPolicy::kSkipRecord: return "skip_record";
    case CorruptRecordPolicy::kStopFile: return "stop_file";
  }
  return "?";
}

Result<CorruptRecordPolicy> ParseCorruptRecordPolicy(std::string_view name) {
  for (auto policy : {CorruptRecordPolicy::kFail, CorruptRecordPolicy::kSkipRecord,
                      CorruptRecordPolicy::kStopFile}) {
    if (name == CorruptRecordPolicyName(policy)) return policy;
  }
  return InvalidArgumentError("unknown corrupt-record policy '", name,
                              "': expected fail, skip_record or stop_file");
}

Result<DatasetPtr> MakeTFRecordDataset(TFRecordOptions options) {
  if (options.files.empty()) return InvalidArgumentError("tfrecord: no files given");
  SLUICE_RETURN_IF_ERROR(CheckReadOptions(options));
  for (const std::string& file : options.files) {
    if (file.empty()) return InvalidArgumentError("tfrecord: an empty file name in files");
  }
  auto shared = std::make_shared<const TFRecordOptions>(std::move(options));
  // Slots beyond the files would stay empty: the order is the same without them.
  const int64_t parallel_reads = std::min<int64_t>(shared->num_parallel_reads, static_cast<int64_t>(shared->files.size()));
  if (parallel_reads == 1) return DatasetPtr(std::make_shared<TFRecordDataset>(shared, nullptr));
  SLUICE_ASSIGN_OR_RETURN(
      DatasetPtr plan,
      MakeParallelFileReads(
          shared->files, parallel_reads,
          [shared](std::string path) { return DatasetPtr(std::make_shared<FileDataset>(std::move(path), shared)); },
          RecordSpec()));
  return DatasetPtr(std::make_shared<TFRecordDataset>(shared, std::move(plan)));
}

Result<TFRecordOptions> TFRecordOptionsFromSpec(const spec::TFRecord& node) {
  TFRecordOptions options{.files = {node.files().begin(), node.files().end()}};
  SLUICE_ASSIGN_OR_RETURN(options.compression, WithContext(ParseCompression(node.compression()), "compression"));
  if (node.has_buffer_size()) options.buffer_size = node.buffer_size();
  if (node.has_num_parallel_reads()) options.num_parallel_reads = node.num_parallel_reads();
  if (node.has_max_record_bytes()) options.max_record_bytes = node.max_record_bytes();
  if (!node.on_corrupt().empty()) {
    SLUICE_ASSIGN_OR_RETURN(options.on_corrupt, WithContext(ParseCorruptRecordPolicy(node.on_corrupt()), "on_corrupt"));
  }
  return options;
}

Result<DatasetPtr> TFRecordDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(TFRecordOptions options, TFRecordOptionsFromSpec(node.tfrecord()));
  return MakeTFRecordDataset(std::move(options));
}

}  // namespace sluice

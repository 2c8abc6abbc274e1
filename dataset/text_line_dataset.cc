#include "sluice/dataset/text_line_dataset.h"

#include <algorithm>
#include <array>
#include <utility>

#include "sluice/dataset/file_runs_iterator.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/parallel_file_reads.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/runtime.h"
#include "sluice/tfrecord/line_reader.h"

namespace sluice {
namespace {

constexpr int64_t kDefaultBufferSize = 256 << 10;

static_assert(TextLineOptions{}.max_line_bytes == LineReaderOptions::kDefaultMaxLineBytes);

const ElementSpec& LineSpec() {
  static const ElementSpec spec{{"", DType::kString, Shape{}}};
  return spec;
}

void TextLineOptionsToSpec(const TextLineOptions& options, spec::TextLine* node) {
  for (const std::string& file : options.files) node->add_files(file);
  node->set_compression(std::string(CompressionName(options.compression)));
  node->set_buffer_size(options.buffer_size);
  node->set_num_parallel_reads(options.num_parallel_reads);
  node->set_max_line_bytes(options.max_line_bytes);
}

// The lines of `files`, one file after another, as views of the reader's
// chunks: a run of lines is one [k] string tensor whose buffer keeps the
// chunks alive.
class LinesIterator final : public FileRunsIterator {
 public:
  LinesIterator(std::vector<std::string> files, std::shared_ptr<const TextLineOptions> options,
                const IteratorContext& ctx)
      : FileRunsIterator(std::move(files), LineSpec()),
        options_(std::move(options)),
        stats_(ctx.stats),
        runtime_(ctx.runtime) {}
  ~LinesIterator() override { CloseFile(); }

 protected:
  Status OpenFile(const std::string& path) override {
    SLUICE_ASSIGN_OR_RETURN(reader_, LineReader::Open(path, ReaderOptions()));
    return OkStatus();
  }
  bool file_open() const override { return reader_ != nullptr; }
  // Counters are added per file, not per line.
  void CloseFile() override {
    if (lines_ > 0) stats_->Add("text_line/lines", std::exchange(lines_, 0));
    if (bytes_ > 0) stats_->Add("text_line/bytes", std::exchange(bytes_, 0));
    reader_.reset();
  }
  Element NewRun(int64_t rows) override {
    kept_ = nullptr;
    return Element{Tensor::Allocate(DType::kString, Shape{rows})};
  }
  Result<int64_t> ReadRows(Element& run, int64_t at, int64_t max_rows) override {
    std::array<std::string_view, kReadAhead> views;
    SLUICE_ASSIGN_OR_RETURN(
        size_t n, reader_->ReadLines(views.data(), static_cast<size_t>(std::min(max_rows, kReadAhead)), &owner_));
    TString* out = run[0].mutable_data<TString>() + at;
    for (size_t i = 0; i < n; ++i) {
      out[i] = TString::View(views[i]);
      bytes_ += static_cast<int64_t>(views[i].size());
    }
    lines_ += static_cast<int64_t>(n);
    if (n > 0 && owner_.get() != kept_) {
      run[0].AddBacking(owner_);
      kept_ = owner_.get();
    }
    return static_cast<int64_t>(n);
  }
  ItemPosition position() const override { return reader_->position(); }
  Status Reopen(const std::string& path, const ItemPosition& position) override {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<LineReader> file, LineReader::Open(path, ReaderOptions()));
    SLUICE_RETURN_IF_ERROR(file->Seek(position));
    reader_ = std::move(file);
    return OkStatus();
  }

 private:
  LineReaderOptions ReaderOptions() const {
    return {.compression = options_->compression,
            .buffer_size =
                static_cast<size_t>(options_->buffer_size == kAutotune ? kDefaultBufferSize : options_->buffer_size),
            .max_line_bytes = static_cast<uint64_t>(options_->max_line_bytes),
            .charge = [runtime = runtime_](int64_t bytes) { return ChargeRecordBytes(runtime->ram_budget(), bytes); }};
  }

  const std::shared_ptr<const TextLineOptions> options_;
  const std::shared_ptr<StatsCounters> stats_;
  const std::shared_ptr<Runtime> runtime_;  // long lines are charged to its RAM budget
  std::unique_ptr<LineReader> reader_;
  std::shared_ptr<const Buffer> owner_;  // of the lines read last
  const Buffer* kept_ = nullptr;         // the backing the run added last
  int64_t lines_ = 0;                    // of the open file, not yet in stats_
  int64_t bytes_ = 0;
};

class TextLineDataset final : public Dataset {
 public:
  // `plan`: for num_parallel_reads > 1, the files read in parallel
  // (dataset/parallel_file_reads.h); null to read them one after another.
  // `write_spec`: false for one file of such a plan, which is never written alone.
  TextLineDataset(std::vector<std::string> files, std::shared_ptr<const TextLineOptions> options, DatasetPtr plan,
                  bool write_spec)
      : Dataset(LineSpec(), kUnknownCardinality),
        files_(std::move(files)),
        options_(std::move(options)),
        plan_(std::move(plan)),
        write_spec_(write_spec) {}

  std::string_view op_name() const override { return write_spec_ ? "text_line" : "text_line_file"; }
  std::string DebugParams() const override {
    return StrCat("files=", files_.size(), ", compression=", CompressionName(options_->compression),
                  ", buffer_size=", options_->buffer_size, ", num_parallel_reads=", options_->num_parallel_reads,
                  ", max_line_bytes=", options_->max_line_bytes);
  }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    if (plan_ == nullptr) return std::make_unique<LinesIterator>(files_, options_, ctx);
    return plan_->NewIterator(ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    if (!write_spec_) return InternalError("text_line_file is part of text_line and never written alone");
    TextLineOptionsToSpec(*options_, pipeline->add_ops()->mutable_text_line());
    return OkStatus();
  }

 private:
  const std::vector<std::string> files_;
  const std::shared_ptr<const TextLineOptions> options_;
  const DatasetPtr plan_;
  const bool write_spec_;
};

// The options other than the files, as both factories check them.
Status CheckReadOptions(const TextLineOptions& options) {
  if (options.num_parallel_reads < 1) {
    return InvalidArgumentError("text_line: num_parallel_reads must be >= 1, got ", options.num_parallel_reads);
  }
  if (options.buffer_size != kAutotune &&
      (options.buffer_size < 1 || options.buffer_size > TextLineOptions::kMaxBufferSize)) {
    return InvalidArgumentError("text_line: buffer_size must be 1 to ", TextLineOptions::kMaxBufferSize,
                                " bytes, or kAutotune, got ", options.buffer_size);
  }
  if (options.max_line_bytes < 1 || options.max_line_bytes > TextLineOptions::kMaxMaxLineBytes) {
    return InvalidArgumentError("text_line: max_line_bytes must be 1 to ", TextLineOptions::kMaxMaxLineBytes,
                                " bytes, got ", options.max_line_bytes);
  }
  return OkStatus();
}

class TextLineFunction final : public DatasetFunction {
 public:
  explicit TextLineFunction(TextLineOptions options) : options_(std::move(options)) {}

  std::string name() const override { return "text_line(files of the element)"; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    if (input.size() != 1 || input[0].dtype != DType::kString || input[0].shape.rank() > 1) {
      return InvalidArgumentError(name(),
                                  ": needs elements that are one string scalar or vector "
                                  "(file names), got ",
                                  input);
    }
    return LineSpec();
  }
  Result<DatasetPtr> Apply(const Element& element) const override {
    TextLineOptions options = options_;
    const TString* names = element[0].data<TString>();
    for (int64_t i = 0; i < element[0].NumElements(); ++i) options.files.emplace_back(names[i]);
    return MakeTextLineDataset(std::move(options));
  }
  Status ToSpec(spec::Pipeline* out) const override {
    auto* source = out->add_ops()->mutable_element_source();
    source->set_kind(spec::ElementSource::TEXT_LINE);
    TextLineOptionsToSpec(options_, source->mutable_text_line());
    return OkStatus();
  }

 private:
  const TextLineOptions options_;
};

}  // namespace

Result<DatasetPtr> MakeTextLineDataset(TextLineOptions options) {
  if (options.files.empty()) return InvalidArgumentError("text_line: no files given");
  SLUICE_RETURN_IF_ERROR(CheckReadOptions(options));
  for (const std::string& file : options.files) {
    if (file.empty()) return InvalidArgumentError("text_line: an empty file name in files");
  }
  auto shared = std::make_shared<const TextLineOptions>(std::move(options));
  const int64_t reads = std::min<int64_t>(shared->num_parallel_reads, static_cast<int64_t>(shared->files.size()));
  if (reads == 1) return DatasetPtr(std::make_shared<TextLineDataset>(shared->files, shared, nullptr, true));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr plan,
                          MakeParallelFileReads(
                              shared->files, reads,
                              [shared](std::string path) {
                                return DatasetPtr(std::make_shared<TextLineDataset>(
                                    std::vector<std::string>{std::move(path)}, shared, nullptr, false));
                              },
                              LineSpec()));
  return DatasetPtr(std::make_shared<TextLineDataset>(shared->files, shared, std::move(plan), true));
}

Result<DatasetFunctionPtr> MakeTextLineFunction(TextLineOptions options) {
  if (!options.files.empty()) {
    return InvalidArgumentError("text_line function: files come from the elements; got ", options.files.size(),
                                " in the options");
  }
  SLUICE_RETURN_IF_ERROR(CheckReadOptions(options));
  return DatasetFunctionPtr(std::make_shared<TextLineFunction>(std::move(options)));
}

Result<TextLineOptions> TextLineOptionsFromSpec(const spec::TextLine& node) {
  TextLineOptions options{.files = {node.files().begin(), node.files().end()}};
  SLUICE_ASSIGN_OR_RETURN(options.compression, WithContext(ParseCompression(node.compression()), "compression"));
  if (node.has_buffer_size()) options.buffer_size = node.buffer_size();
  if (node.has_num_parallel_reads()) options.num_parallel_reads = node.num_parallel_reads();
  if (node.has_max_line_bytes()) options.max_line_bytes = node.max_line_bytes();
  return options;
}

Result<DatasetPtr> TextLineDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(TextLineOptions options, TextLineOptionsFromSpec(node.text_line()));
  return MakeTextLineDataset(std::move(options));
}

}  // namespace sluice

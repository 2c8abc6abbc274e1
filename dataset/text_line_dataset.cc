#include "sluice/dataset/text_line_dataset.h"

#include "sluice/dataset/file_source.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/string_runs_iterator.h"
#include "sluice/tfrecord/line_reader.h"

namespace sluice {
namespace {

static_assert(TextLineOptions{}.max_line_bytes == LineReaderOptions::kDefaultMaxLineBytes);
static_assert(TextLineOptions::kMaxBufferSize == FileSource::kMaxBufferSize);

// The options without the files, which the dataset holds.
class TextLineSource final : public FileSource {
 public:
  explicit TextLineSource(TextLineOptions options) : options_(std::move(options)) {}

  std::string_view op_name() const override { return "text_line"; }
  const ElementSpec& element_spec() const override { return StringRunsIterator<LineReader>::Spec(); }
  int64_t num_parallel_reads() const override { return options_.num_parallel_reads; }
  std::string DebugParams() const override {
    return StrCat("compression=", CompressionName(options_.compression), ", buffer_size=", options_.buffer_size,
                  ", num_parallel_reads=", options_.num_parallel_reads, ", max_line_bytes=", options_.max_line_bytes);
  }
  std::unique_ptr<Iterator> NewIterator(std::vector<std::string> files, const IteratorContext& ctx) const override {
    LineReaderOptions reader{
        .compression = options_.compression,
        .buffer_size = ReadBufferBytes(options_.buffer_size),
        .max_line_bytes = static_cast<uint64_t>(options_.max_line_bytes),
        .charge = [runtime = ctx.runtime](int64_t bytes) { return ChargeRecordBytes(runtime->ram_budget(), bytes); }};
    return std::make_unique<StringRunsIterator<LineReader>>(
        std::move(files), [reader](const std::string& path) { return LineReader::Open(path, reader); },
        &LineReader::ReadLines, StringRunsIterator<LineReader>::Counters{"text_line/lines", "text_line/bytes"},
        ctx.stats);
  }
  void ToSpec(std::vector<std::string> files, spec::Pipeline* pipeline) const override {
    spec::TextLine* node = pipeline->add_ops()->mutable_text_line();
    for (std::string& file : files) node->add_files(std::move(file));
    WriteOptions(node);
  }
  void ToElementSourceSpec(spec::Pipeline* function) const override {
    spec::ElementSource* source = function->add_ops()->mutable_element_source();
    source->set_kind(spec::ElementSource::TEXT_LINE);
    WriteOptions(source->mutable_text_line());
  }

 private:
  void WriteOptions(spec::TextLine* node) const {
    node->set_compression(std::string(CompressionName(options_.compression)));
    node->set_buffer_size(options_.buffer_size);
    node->set_num_parallel_reads(options_.num_parallel_reads);
    node->set_max_line_bytes(options_.max_line_bytes);
  }

  const TextLineOptions options_;
};

// The options other than the files, checked, as a source.
Result<std::shared_ptr<const FileSource>> MakeSource(TextLineOptions options) {
  SLUICE_RETURN_IF_ERROR(CheckFileReadOptions("text_line", options.buffer_size, options.num_parallel_reads));
  if (options.max_line_bytes < 1 || options.max_line_bytes > TextLineOptions::kMaxMaxLineBytes) {
    return InvalidArgumentError("text_line: max_line_bytes must be 1 to ", TextLineOptions::kMaxMaxLineBytes,
                                " bytes, got ", options.max_line_bytes);
  }
  options.files.clear();
  return std::shared_ptr<const FileSource>(std::make_shared<TextLineSource>(std::move(options)));
}

}  // namespace

Result<DatasetPtr> MakeTextLineDataset(TextLineOptions options) {
  std::vector<std::string> files = std::move(options.files);
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const FileSource> source, MakeSource(std::move(options)));
  return MakeFileSourceDataset(std::move(files), std::move(source));
}

Result<DatasetFunctionPtr> MakeTextLineFunction(TextLineOptions options) {
  if (!options.files.empty()) {
    return InvalidArgumentError("text_line function: files come from the elements; got ", options.files.size(),
                                " in the options");
  }
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const FileSource> source, MakeSource(std::move(options)));
  return MakeFileSourceFunction(std::move(source));
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

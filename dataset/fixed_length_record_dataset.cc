#include "sluice/dataset/fixed_length_record_dataset.h"

#include "sluice/dataset/file_source.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/ram_budget.h"
#include "sluice/dataset/runtime.h"
#include "sluice/dataset/string_runs_iterator.h"
#include "sluice/tfrecord/fixed_length_record_reader.h"

namespace sluice {
namespace {

static_assert(FixedLengthRecordOptions::kMaxBufferSize == FileSource::kMaxBufferSize);

using RecordsIterator = StringRunsIterator<FixedLengthRecordReader>;

// The options without the files, which the dataset holds.
class FixedLengthRecordSource final : public FileSource {
 public:
  explicit FixedLengthRecordSource(FixedLengthRecordOptions options) : options_(std::move(options)) {}

  std::string_view op_name() const override { return "fixed_length_record"; }
  const ElementSpec& element_spec() const override { return RecordsIterator::Spec(); }
  int64_t num_parallel_reads() const override { return options_.num_parallel_reads; }
  std::string DebugParams() const override {
    return StrCat("record_bytes=", options_.record_bytes, ", header_bytes=", options_.header_bytes,
                  ", footer_bytes=", options_.footer_bytes, ", compression=", CompressionName(options_.compression),
                  ", buffer_size=", options_.buffer_size, ", num_parallel_reads=", options_.num_parallel_reads);
  }
  std::unique_ptr<Iterator> NewIterator(std::vector<std::string> files, const IteratorContext& ctx) const override {
    FixedLengthRecordReaderOptions reader{
        .record_bytes = static_cast<uint64_t>(options_.record_bytes),
        .header_bytes = static_cast<uint64_t>(options_.header_bytes),
        .footer_bytes = static_cast<uint64_t>(options_.footer_bytes),
        .compression = options_.compression,
        .buffer_size = ReadBufferBytes(options_.buffer_size),
        .charge = [runtime = ctx.runtime](int64_t bytes) { return ChargeRecordBytes(runtime->ram_budget(), bytes); }};
    return std::make_unique<RecordsIterator>(
        std::move(files), [reader](const std::string& path) { return FixedLengthRecordReader::Open(path, reader); },
        &FixedLengthRecordReader::ReadRecords,
        RecordsIterator::Counters{"fixed_length_record/records", "fixed_length_record/bytes"}, ctx.stats);
  }
  void ToSpec(std::vector<std::string> files, spec::Pipeline* pipeline) const override {
    spec::FixedLengthRecord* node = pipeline->add_ops()->mutable_fixed_length_record();
    for (std::string& file : files) node->add_files(std::move(file));
    WriteOptions(node);
  }
  void ToElementSourceSpec(spec::Pipeline* function) const override {
    spec::ElementSource* source = function->add_ops()->mutable_element_source();
    source->set_kind(spec::ElementSource::FIXED_LENGTH_RECORD);
    WriteOptions(source->mutable_fixed_length_record());
  }

 private:
  void WriteOptions(spec::FixedLengthRecord* node) const {
    node->set_record_bytes(options_.record_bytes);
    node->set_header_bytes(options_.header_bytes);
    node->set_footer_bytes(options_.footer_bytes);
    node->set_compression(std::string(CompressionName(options_.compression)));
    node->set_buffer_size(options_.buffer_size);
    node->set_num_parallel_reads(options_.num_parallel_reads);
  }

  const FixedLengthRecordOptions options_;
};

// The options other than the files, checked, as a source.
Result<std::shared_ptr<const FileSource>> MakeSource(FixedLengthRecordOptions options) {
  SLUICE_RETURN_IF_ERROR(CheckFileReadOptions("fixed_length_record", options.buffer_size, options.num_parallel_reads));
  constexpr int64_t kMaxRecord = FixedLengthRecordOptions::kMaxRecordBytes;
  if (options.record_bytes < 1 || options.record_bytes > kMaxRecord) {
    return InvalidArgumentError("fixed_length_record: record_bytes must be 1 to ", kMaxRecord, " bytes, got ",
                                options.record_bytes);
  }
  if (options.footer_bytes < 0 || options.footer_bytes > kMaxRecord) {
    return InvalidArgumentError("fixed_length_record: footer_bytes must be 0 to ", kMaxRecord, " bytes, got ",
                                options.footer_bytes);
  }
  if (options.header_bytes < 0 || options.header_bytes > FixedLengthRecordOptions::kMaxHeaderBytes) {
    return InvalidArgumentError("fixed_length_record: header_bytes must be 0 to ",
                                FixedLengthRecordOptions::kMaxHeaderBytes, " bytes, got ", options.header_bytes);
  }
  options.files.clear();
  return std::shared_ptr<const FileSource>(std::make_shared<FixedLengthRecordSource>(std::move(options)));
}

}  // namespace

Result<DatasetPtr> MakeFixedLengthRecordDataset(FixedLengthRecordOptions options) {
  std::vector<std::string> files = std::move(options.files);
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const FileSource> source, MakeSource(std::move(options)));
  return MakeFileSourceDataset(std::move(files), std::move(source));
}

Result<DatasetFunctionPtr> MakeFixedLengthRecordFunction(FixedLengthRecordOptions options) {
  if (!options.files.empty()) {
    return InvalidArgumentError("fixed_length_record function: files come from the elements; got ",
                                options.files.size(), " in the options");
  }
  SLUICE_ASSIGN_OR_RETURN(std::shared_ptr<const FileSource> source, MakeSource(std::move(options)));
  return MakeFileSourceFunction(std::move(source));
}

Result<FixedLengthRecordOptions> FixedLengthRecordOptionsFromSpec(const spec::FixedLengthRecord& node) {
  FixedLengthRecordOptions options{.files = {node.files().begin(), node.files().end()},
                                   .record_bytes = node.record_bytes(),
                                   .header_bytes = node.header_bytes(),
                                   .footer_bytes = node.footer_bytes()};
  SLUICE_ASSIGN_OR_RETURN(options.compression, WithContext(ParseCompression(node.compression()), "compression"));
  if (node.has_buffer_size()) options.buffer_size = node.buffer_size();
  if (node.has_num_parallel_reads()) options.num_parallel_reads = node.num_parallel_reads();
  return options;
}

Result<DatasetPtr> FixedLengthRecordDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext&) {
  SLUICE_ASSIGN_OR_RETURN(FixedLengthRecordOptions options,
                          FixedLengthRecordOptionsFromSpec(node.fixed_length_record()));
  return MakeFixedLengthRecordDataset(std::move(options));
}

}  // namespace sluice

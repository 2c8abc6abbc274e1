#include "sluice/dataset/file_source.h"

#include <algorithm>
#include <utility>

#include "sluice/dataset/parallel_file_reads.h"

namespace sluice {
namespace {

class FileSourceDataset final : public Dataset {
 public:
  // `plan`: for num_parallel_reads > 1, the files read in parallel; null to
  // read them one after another. `write_spec`: false for one file of such a
  // plan, which is never written alone.
  FileSourceDataset(std::vector<std::string> files, std::shared_ptr<const FileSource> source, DatasetPtr plan,
                    bool write_spec)
      : Dataset(source->element_spec(), kUnknownCardinality),
        files_(std::move(files)),
        source_(std::move(source)),
        plan_(std::move(plan)),
        write_spec_(write_spec),
        op_name_(write_spec ? std::string(source_->op_name()) : StrCat(source_->op_name(), "_file")) {}

  std::string_view op_name() const override { return op_name_; }
  std::string DebugParams() const override { return StrCat("files=", files_.size(), ", ", source_->DebugParams()); }
  std::vector<DatasetPtr> inputs() const override { return {}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override {
    if (plan_ == nullptr) return source_->NewIterator(files_, ctx);
    return plan_->NewIterator(ctx);
  }
  Status ToSpec(spec::Pipeline* pipeline) const override {
    if (!write_spec_) return InternalError(op_name_, " is part of ", source_->op_name(), " and never written alone");
    source_->ToSpec(files_, pipeline);
    return OkStatus();
  }

 private:
  const std::vector<std::string> files_;
  const std::shared_ptr<const FileSource> source_;
  const DatasetPtr plan_;
  const bool write_spec_;
  const std::string op_name_;
};

class FileSourceFunction final : public DatasetFunction {
 public:
  explicit FileSourceFunction(std::shared_ptr<const FileSource> source)
      : source_(std::move(source)), name_(StrCat(source_->op_name(), "(files of the element)")) {}

  std::string name() const override { return name_; }
  Result<ElementSpec> OutputSpec(const ElementSpec& input) const override {
    if (input.size() != 1 || input[0].dtype != DType::kString || input[0].shape.rank() > 1) {
      return InvalidArgumentError(name_, ": needs elements that are one string scalar or vector (file names), got ",
                                  input);
    }
    return source_->element_spec();
  }
  Result<DatasetPtr> Apply(const Element& element) const override {
    std::vector<std::string> files;
    const TString* names = element[0].data<TString>();
    for (int64_t i = 0; i < element[0].NumElements(); ++i) files.emplace_back(names[i]);
    return MakeFileSourceDataset(std::move(files), source_);
  }
  Status ToSpec(spec::Pipeline* out) const override {
    source_->ToElementSourceSpec(out);
    return OkStatus();
  }

 private:
  const std::shared_ptr<const FileSource> source_;
  const std::string name_;
};

}  // namespace

Status CheckFileReadOptions(std::string_view op, int64_t buffer_size, int64_t num_parallel_reads) {
  if (num_parallel_reads < 1) {
    return InvalidArgumentError(op, ": num_parallel_reads must be >= 1, got ", num_parallel_reads);
  }
  if (buffer_size != kAutotune && (buffer_size < 1 || buffer_size > FileSource::kMaxBufferSize)) {
    return InvalidArgumentError(op, ": buffer_size must be 1 to ", FileSource::kMaxBufferSize,
                                " bytes, or kAutotune, got ", buffer_size);
  }
  return OkStatus();
}

size_t ReadBufferBytes(int64_t buffer_size) {
  return static_cast<size_t>(buffer_size == kAutotune ? FileSource::kDefaultBufferSize : buffer_size);
}

Result<DatasetPtr> MakeFileSourceDataset(std::vector<std::string> files, std::shared_ptr<const FileSource> source) {
  if (files.empty()) return InvalidArgumentError(source->op_name(), ": no files given");
  for (const std::string& file : files) {
    if (file.empty()) return InvalidArgumentError(source->op_name(), ": an empty file name in files");
  }
  const int64_t reads = std::min<int64_t>(source->num_parallel_reads(), static_cast<int64_t>(files.size()));
  if (reads == 1) return DatasetPtr(std::make_shared<FileSourceDataset>(std::move(files), source, nullptr, true));
  SLUICE_ASSIGN_OR_RETURN(DatasetPtr plan,
                          MakeParallelFileReads(
                              files, reads,
                              [source](std::string path) {
                                return DatasetPtr(std::make_shared<FileSourceDataset>(
                                    std::vector<std::string>{std::move(path)}, source, nullptr, false));
                              },
                              source->element_spec()));
  return DatasetPtr(std::make_shared<FileSourceDataset>(std::move(files), source, std::move(plan), true));
}

DatasetFunctionPtr MakeFileSourceFunction(std::shared_ptr<const FileSource> source) {
  return std::make_shared<FileSourceFunction>(std::move(source));
}

}  // namespace sluice

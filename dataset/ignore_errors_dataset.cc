#include "sluice/dataset/ignore_errors_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

class IgnoreErrorsDataset final : public Dataset {
 public:
  IgnoreErrorsDataset(DatasetPtr input, IgnoreErrorsOptions options)
      : Dataset(input->element_spec(), kUnknownCardinality), input_(std::move(input)), options_(options) {}

  std::string_view op_name() const override { return "ignore_errors"; }
  std::string DebugParams() const override {
    return StrCat("log_warning=", options_.log_warning ? "true" : "false");
  }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_ignore_errors()->set_log_warning(options_.log_warning);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  bool log_warning() const { return options_.log_warning; }

 private:
  const DatasetPtr input_;
  const IgnoreErrorsOptions options_;
};

class IgnoreErrorsIterator final : public Iterator {
 public:
  IgnoreErrorsIterator(std::shared_ptr<const IgnoreErrorsDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (true) {
      Result<std::optional<Element>> next = input_->GetNext();
      if (next.ok() || TraversalCancelled()) return next;
      if (dataset_->log_warning()) SLUICE_LOG(WARNING) << "ignore_errors: dropped an element: " << next.status();
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const IgnoreErrorsDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
};

std::unique_ptr<Iterator> IgnoreErrorsDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<IgnoreErrorsIterator>(SharedThis<IgnoreErrorsDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeIgnoreErrorsDataset(DatasetPtr input, IgnoreErrorsOptions options) {
  if (input == nullptr) return InvalidArgumentError("ignore_errors: input dataset is null");
  return Dataset::Make<IgnoreErrorsDataset>(std::move(input), options);
}

Result<DatasetPtr> IgnoreErrorsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeIgnoreErrorsDataset(context.input(), {.log_warning = node.ignore_errors().log_warning()});
}

}  // namespace sluice

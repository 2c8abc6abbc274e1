#include "sluice/dataset/take_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t TakenCardinality(int64_t n, int64_t count) {
  if (n == kUnknownCardinality) return n;
  if (count < 0) return n;
  if (n == kInfiniteCardinality) return count;
  return std::min(n, count);
}

class TakeDataset final : public Dataset {
 public:
  TakeDataset(DatasetPtr input, TakeOptions options)
      : Dataset(input->element_spec(), TakenCardinality(input->cardinality(), options.count)),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "take"; }
  std::string DebugParams() const override { return StrCat("count=", options_.count); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_take()->set_count(options_.count);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t count() const { return options_.count; }

 private:
  const DatasetPtr input_;
  const TakeOptions options_;
};

class TakeIterator final : public Iterator {
 public:
  TakeIterator(std::shared_ptr<const TakeDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (Remaining() == 0) return std::nullopt;
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (element) ++taken_;
    return element;
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    const int64_t remaining = Remaining();
    if (remaining == 0) return std::nullopt;
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run,
                            input_->GetNextRun(remaining < 0 ? max_rows : std::min(max_rows, remaining)));
    if (run) taken_ += (*run)[0].dim(0);
    return run;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("taken", taken_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(taken_, reader.ReadInt("taken", 0, CountOrMax(dataset_->count())));
    return reader.ReadIterator("input", *input_);
  }

 private:
  // -1 when unbounded.
  int64_t Remaining() const { return dataset_->count() < 0 ? -1 : dataset_->count() - taken_; }

  const std::shared_ptr<const TakeDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  int64_t taken_ = 0;
};

std::unique_ptr<Iterator> TakeDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<TakeIterator>(SharedThis<TakeDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeTakeDataset(DatasetPtr input, TakeOptions options) {
  if (input == nullptr) return InvalidArgumentError("take: input dataset is null");
  if (options.count < -1) {
    return InvalidArgumentError("take: count must be >= 0, or -1 to take everything (got ",
                                options.count, ")");
  }
  return Dataset::Make<TakeDataset>(std::move(input), options);
}

Result<DatasetPtr> TakeDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeTakeDataset(context.input(), {.count = node.take().count()});
}

}  // namespace sluice

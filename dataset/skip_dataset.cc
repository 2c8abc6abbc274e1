#include "sluice/dataset/skip_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t SkippedCardinality(int64_t n, int64_t count) {
  if (n < 0) return n;
  return count < 0 ? 0 : std::max<int64_t>(0, n - count);
}

class SkipDataset final : public Dataset {
 public:
  SkipDataset(DatasetPtr input, SkipOptions options)
      : Dataset(input->element_spec(), SkippedCardinality(input->cardinality(), options.count)),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "skip"; }
  std::string DebugParams() const override { return StrCat("count=", options_.count); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_skip()->set_count(options_.count);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t count() const { return options_.count; }

 private:
  const DatasetPtr input_;
  const SkipOptions options_;
};

class SkipIterator final : public Iterator {
 public:
  SkipIterator(std::shared_ptr<const SkipDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    SLUICE_ASSIGN_OR_RETURN(bool more, SkipAhead());
    if (!more) return std::nullopt;
    return input_->GetNext();
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    SLUICE_ASSIGN_OR_RETURN(bool more, SkipAhead());
    if (!more) return std::nullopt;
    return input_->GetNextRun(max_rows);
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("skipped", skipped_);
    writer.WriteBool("input_done", input_done_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(skipped_, reader.ReadInt("skipped", 0, CountOrMax(dataset_->count())));
    SLUICE_ASSIGN_OR_RETURN(input_done_, reader.ReadBool("input_done"));
    return reader.ReadIterator("input", *input_);
  }

 private:
  // Drops elements until `count` are skipped; false when the input ended.
  // An error while skipping is returned, and that element is not counted.
  Result<bool> SkipAhead() {
    if (input_done_) return false;
    while (dataset_->count() < 0 || skipped_ < dataset_->count()) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) {
        input_done_ = true;
        return false;
      }
      ++skipped_;
    }
    return true;
  }

  const std::shared_ptr<const SkipDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  int64_t skipped_ = 0;
  bool input_done_ = false;
};

std::unique_ptr<Iterator> SkipDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<SkipIterator>(SharedThis<SkipDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeSkipDataset(DatasetPtr input, SkipOptions options) {
  if (input == nullptr) return InvalidArgumentError("skip: input dataset is null");
  if (options.count < -1) {
    return InvalidArgumentError("skip: count must be >= 0, or -1 to skip everything (got ",
                                options.count, ")");
  }
  return Dataset::Make<SkipDataset>(std::move(input), options);
}

Result<DatasetPtr> SkipDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeSkipDataset(context.input(), {.count = node.skip().count()});
}

}  // namespace sluice

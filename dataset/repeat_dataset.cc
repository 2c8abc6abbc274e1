#include "sluice/dataset/repeat_dataset.h"

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

int64_t RepeatedCardinality(int64_t n, int64_t count) {
  if (count < 0) return n == 0 ? 0 : kInfiniteCardinality;
  if (count == 0) return 0;
  if (n < 0) return n;
  return n * count;
}

class RepeatDataset final : public Dataset {
 public:
  RepeatDataset(DatasetPtr input, RepeatOptions options)
      : Dataset(input->element_spec(), RepeatedCardinality(input->cardinality(), options.count)),
        input_(std::move(input)),
        options_(options) {}

  std::string_view op_name() const override { return "repeat"; }
  std::string DebugParams() const override { return StrCat("count=", options_.count); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    pipeline->add_ops()->mutable_repeat()->set_count(options_.count);
    return OkStatus();
  }

  const DatasetPtr& input() const { return input_; }
  int64_t count() const { return options_.count; }

 private:
  const DatasetPtr input_;
  const RepeatOptions options_;
};

class RepeatIterator final : public Iterator {
 public:
  RepeatIterator(std::shared_ptr<const RepeatDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), ctx_(ctx) {
    if (dataset_->count() != 0) input_ = dataset_->input()->NewIterator(ctx_);
  }

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (input_ != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (element) {
        produced_in_pass_ = true;
        return element;
      }
      NextPass();
    }
    return std::nullopt;
  }

  Result<std::optional<Element>> GetNextRunInternal(int64_t max_rows) override {
    while (input_ != nullptr) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> run, input_->GetNextRun(max_rows));
      if (run) {
        produced_in_pass_ = true;
        return run;
      }
      NextPass();
    }
    return std::nullopt;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteInt("passes", passes_);
    writer.WriteBool("produced_in_pass", produced_in_pass_);
    writer.WriteBool("done", input_ == nullptr);
    return input_ == nullptr ? OkStatus() : writer.WriteIterator("input", *input_);
  }
  // The pass's input iterator is made fresh and restored; a shuffle below
  // restores its epoch, so later passes reshuffle as the saved run did.
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(passes_, reader.ReadInt("passes", 0, CountOrMax(dataset_->count())));
    SLUICE_ASSIGN_OR_RETURN(produced_in_pass_, reader.ReadBool("produced_in_pass"));
    SLUICE_ASSIGN_OR_RETURN(bool done, reader.ReadBool("done"));
    input_.reset();
    if (done) return OkStatus();
    input_ = dataset_->input()->NewIterator(ctx_);
    return reader.ReadIterator("input", *input_);
  }

 private:
  // Starts the next pass with a fresh input iterator, or ends: after `count`
  // passes, or after a pass that produced nothing (so an empty input never spins).
  void NextPass() {
    ++passes_;
    const bool done = !produced_in_pass_ || (dataset_->count() >= 0 && passes_ >= dataset_->count());
    input_.reset();  // the old pass's workers stop before the next pass starts
    if (!done) input_ = dataset_->input()->NewIterator(ctx_);
    produced_in_pass_ = false;
  }

  const std::shared_ptr<const RepeatDataset> dataset_;
  const IteratorContext ctx_;
  std::unique_ptr<Iterator> input_;  // null when done
  int64_t passes_ = 0;
  bool produced_in_pass_ = false;
};

std::unique_ptr<Iterator> RepeatDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<RepeatIterator>(SharedThis<RepeatDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeRepeatDataset(DatasetPtr input, RepeatOptions options) {
  if (input == nullptr) return InvalidArgumentError("repeat: input dataset is null");
  if (options.count < -1) {
    return InvalidArgumentError("repeat: count must be >= 0, or -1 to repeat forever (got ",
                                options.count, ")");
  }
  return Dataset::Make<RepeatDataset>(std::move(input), options);
}

Result<DatasetPtr> RepeatDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  return MakeRepeatDataset(context.input(), {.count = node.repeat().has_count() ? node.repeat().count() : -1});
}

}  // namespace sluice

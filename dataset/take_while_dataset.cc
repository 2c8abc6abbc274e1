#include "sluice/dataset/take_while_dataset.h"

#include "sluice/dataset/compare_predicate.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/predicate_input.h"

namespace sluice {
namespace {

class TakeWhileDataset final : public PredicateInputDataset {
 public:
  TakeWhileDataset(DatasetPtr input, PredicatePtr predicate, BoundPredicate bound)
      : PredicateInputDataset(std::move(input), std::move(predicate), std::move(bound)) {}

  std::string_view op_name() const override { return "take_while"; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    return PredicateToSpec(pipeline,
                           [](spec::DatasetNode* node) { return node->mutable_take_while()->mutable_predicate(); });
  }
};

class TakeWhileIterator final : public Iterator {
 public:
  TakeWhileIterator(std::shared_ptr<const TakeWhileDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    if (stopped_) return std::nullopt;
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (!element) return std::nullopt;
    Result<bool> keep = dataset_->predicate()(*element);
    if (!keep.ok()) return keep.status().WithContext("take_while");
    if (*keep) return element;
    stopped_ = true;
    return std::nullopt;
  }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteBool("stopped", stopped_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(stopped_, reader.ReadBool("stopped"));
    return reader.ReadIterator("input", *input_);
  }

 private:
  const std::shared_ptr<const TakeWhileDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  bool stopped_ = false;  // the predicate was false: the sequence has ended
};

std::unique_ptr<Iterator> TakeWhileDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<TakeWhileIterator>(SharedThis<TakeWhileDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeTakeWhileDataset(DatasetPtr input, PredicatePtr predicate) {
  SLUICE_ASSIGN_OR_RETURN(BoundPredicate bound, BindInputPredicate("take_while", input, predicate));
  return Dataset::Make<TakeWhileDataset>(std::move(input), std::move(predicate), std::move(bound));
}

Result<DatasetPtr> TakeWhileDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  if (!node.take_while().has_predicate()) return InvalidArgumentError("take_while has no predicate");
  SLUICE_ASSIGN_OR_RETURN(PredicatePtr predicate, PredicateFromSpec(node.take_while().predicate()));
  return MakeTakeWhileDataset(context.input(), std::move(predicate));
}

}  // namespace sluice

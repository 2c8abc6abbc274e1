#include "sluice/dataset/filter_dataset.h"

#include "sluice/dataset/compare_predicate.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/predicate_input.h"

namespace sluice {
namespace {

class FilterDataset final : public PredicateInputDataset {
 public:
  FilterDataset(DatasetPtr input, PredicatePtr predicate, BoundPredicate bound)
      : PredicateInputDataset(std::move(input), std::move(predicate), std::move(bound)) {}

  std::string_view op_name() const override { return "filter"; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    return PredicateToSpec(pipeline,
                           [](spec::DatasetNode* node) { return node->mutable_filter()->mutable_predicate(); });
  }
};

class FilterIterator final : public Iterator {
 public:
  FilterIterator(std::shared_ptr<const FilterDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    while (true) {
      SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
      if (!element) return std::nullopt;
      Result<bool> keep = dataset_->predicate()(*element);
      if (!keep.ok()) return keep.status().WithContext("filter");
      if (*keep) return element;
    }
  }

  Status SaveInternal(IteratorStateWriter& writer) override { return writer.WriteIterator("input", *input_); }
  Status RestoreInternal(IteratorStateReader& reader) override { return reader.ReadIterator("input", *input_); }

 private:
  const std::shared_ptr<const FilterDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
};

std::unique_ptr<Iterator> FilterDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<FilterIterator>(SharedThis<FilterDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeFilterDataset(DatasetPtr input, PredicatePtr predicate) {
  SLUICE_ASSIGN_OR_RETURN(BoundPredicate bound, BindInputPredicate("filter", input, predicate));
  return Dataset::Make<FilterDataset>(std::move(input), std::move(predicate), std::move(bound));
}

Result<DatasetPtr> FilterDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  if (!node.filter().has_predicate()) return InvalidArgumentError("filter has no predicate");
  SLUICE_ASSIGN_OR_RETURN(PredicatePtr predicate, PredicateFromSpec(node.filter().predicate()));
  return MakeFilterDataset(context.input(), std::move(predicate));
}

}  // namespace sluice

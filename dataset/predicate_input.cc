#include "sluice/dataset/predicate_input.h"

#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {

PredicateInputDataset::PredicateInputDataset(DatasetPtr input, PredicatePtr predicate, BoundPredicate bound)
    : Dataset(input->element_spec(), kUnknownCardinality),
      input_(std::move(input)),
      predicate_(std::move(predicate)),
      bound_(std::move(bound)) {}

std::string PredicateInputDataset::DebugParams() const { return StrCat("predicate=", predicate_->name()); }

Status PredicateInputDataset::PredicateToSpec(spec::Pipeline* pipeline,
                                              spec::Predicate* (*predicate_field)(spec::DatasetNode* node)) const {
  SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
  return predicate_->ToSpec(predicate_field(pipeline->add_ops()));
}

Result<BoundPredicate> BindInputPredicate(std::string_view op, const DatasetPtr& input,
                                          const PredicatePtr& predicate) {
  if (input == nullptr) return InvalidArgumentError(op, ": input dataset is null");
  if (predicate == nullptr) return InvalidArgumentError(op, ": predicate is null");
  Result<BoundPredicate> bound = predicate->Bind(input->element_spec());
  if (!bound.ok()) return bound.status().WithContext(op);
  return bound;
}

}  // namespace sluice

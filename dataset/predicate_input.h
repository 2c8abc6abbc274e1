// The dataset half that the ops testing each input element with a
// Predicate share (filter, take_while): the input, the predicate, and the
// predicate bound to the input's element spec. Those ops derive their
// hidden Dataset classes from it; their cardinality is unknown.
// Thread safety: immutable, as every Dataset.
#pragma once

#include <string_view>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

namespace spec {
class Predicate;
}  // namespace spec

class PredicateInputDataset : public Dataset {
 public:
  std::string DebugParams() const override;
  std::vector<DatasetPtr> inputs() const override { return {input_}; }

  const DatasetPtr& input() const { return input_; }
  const BoundPredicate& predicate() const { return bound_; }

 protected:
  PredicateInputDataset(DatasetPtr input, PredicatePtr predicate, BoundPredicate bound);

  // Writes the input's chain, then a node holding the predicate in the
  // field that `predicate_field` returns of it (filter's, take_while's).
  Status PredicateToSpec(spec::Pipeline* pipeline,
                         spec::Predicate* (*predicate_field)(spec::DatasetNode* node)) const;

 private:
  const DatasetPtr input_;
  const PredicatePtr predicate_;  // for name() and ToSpec
  const BoundPredicate bound_;    // predicate_ bound to input_'s element spec
};

// For the factories: `predicate` bound to `input`'s element spec; a null
// argument or a failed Bind is InvalidArgument prefixed by `op`.
Result<BoundPredicate> BindInputPredicate(std::string_view op, const DatasetPtr& input,
                                          const PredicatePtr& predicate);

}  // namespace sluice

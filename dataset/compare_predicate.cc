#include "sluice/dataset/compare_predicate.h"

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/expression_functions.h"
#include "sluice/dataset/function_registry.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

std::string_view ComparisonSymbol(Comparison comparison) {
  switch (comparison) {
    case Comparison::kEqual: return "==";
    case Comparison::kNotEqual: return "!=";
    case Comparison::kLess: return "<";
    case Comparison::kLessEqual: return "<=";
    case Comparison::kGreater: return ">";
    case Comparison::kGreaterEqual: return ">=";
  }
  return "?";
}

bool Compare(Comparison comparison, double x, double value) {
  switch (comparison) {
    case Comparison::kEqual: return x == value;
    case Comparison::kNotEqual: return x != value;
    case Comparison::kLess: return x < value;
    case Comparison::kLessEqual: return x <= value;
    case Comparison::kGreater: return x > value;
    case Comparison::kGreaterEqual: return x >= value;
  }
  return false;
}

class ComparePredicate final : public Predicate {
 public:
  ComparePredicate(std::string component, Comparison comparison, double value)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        comparison_(comparison),
        value_(value),
        name_(StrCat("compare(", target_.Prefix(" "), ComparisonSymbol(comparison), " ", value,
                     ")")) {}

  std::string name() const override { return name_; }
  Result<BoundPredicate> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(std::vector<size_t> indices, target_.Resolve(name_, input));
    const size_t i = indices.front();
    if (input[i].dtype == DType::kString) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i),
                                  " has dtype string; compare needs a numeric scalar");
    }
    if (input[i].shape.rank() != 0) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(i), " has shape ",
                                  input[i].shape, "; compare needs a scalar");
    }
    return BoundPredicate([name = name_, arity = input.size(), i, component = input.DisplayName(i),
                           comparison = comparison_,
                           value = value_](const Element& element) -> Result<bool> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      const Tensor& t = element[i];
      if (t.dtype() == DType::kString || t.rank() != 0) {
        return InvalidArgumentError(name, ": component ", component, " is ", t.dtype(), t.shape(),
                                    ", not a numeric scalar");
      }
      const double x = VisitNumericDType(
          t.dtype(), [&](auto zero) { return ConvertValue<double>(t.scalar<decltype(zero)>()); });
      return Compare(comparison, x, value);
    });
  }
  Status ToSpec(spec::Predicate* out) const override {
    out->set_component(target_.component());
    out->set_comparison(static_cast<spec::Predicate::Comparison>(comparison_));
    out->set_value(value_);
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const Comparison comparison_;
  const double value_;
  const std::string name_;
};

// The spec enum and Comparison list the same comparisons in the same order.
static_assert(static_cast<int>(Comparison::kEqual) == spec::Predicate::EQUAL &&
              static_cast<int>(Comparison::kGreaterEqual) == spec::Predicate::GREATER_EQUAL);

}  // namespace

Result<PredicatePtr> MakeComparePredicate(std::string component, Comparison comparison,
                                          double value) {
  if (comparison < Comparison::kEqual || comparison > Comparison::kGreaterEqual) {
    return InvalidArgumentError("compare: unknown comparison ", static_cast<int>(comparison));
  }
  return PredicatePtr(std::make_shared<ComparePredicate>(std::move(component), comparison, value));
}

Result<PredicatePtr> PredicateFromSpec(const spec::Predicate& predicate) {
  if (predicate.has_named()) return NamedPredicateFromSpec(predicate.named());
  if (predicate.has_expression()) return ExpressionPredicateFromSpec(predicate.expression());
  return MakeComparePredicate(predicate.component(),
                              static_cast<Comparison>(predicate.comparison()), predicate.value());
}

}  // namespace sluice

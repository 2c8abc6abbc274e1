#include "sluice/dataset/expression_functions.h"

#include <set>

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/expression_bind.h"
#include "sluice/dataset/expression_evaluate.h"
#include "sluice/dataset/expression_parse.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// Replaces every text node under `e` by its parsed tree.
Status ParseTextNodes(spec::Expression* e, int depth) {
  if (depth > kMaxExpressionDepth) {
    return InvalidArgumentError("the expression nests deeper than ", kMaxExpressionDepth, " levels");
  }
  if (e->has_text()) {
    SLUICE_ASSIGN_OR_RETURN(spec::Expression parsed, ParseExpression(e->text()));
    *e = std::move(parsed);
    return OkStatus();
  }
  if (!e->has_call()) return OkStatus();
  for (spec::Expression& arg : *e->mutable_call()->mutable_args()) {
    SLUICE_RETURN_IF_ERROR(ParseTextNodes(&arg, depth + 1));
  }
  return OkStatus();
}

// Checks that a bound expression gives a scalar of the kind `what` names
// ("a bool scalar"), whose dtype `dtype_ok` says is right.
Status CheckScalar(std::string_view fn, const BoundExpression& bound, std::string_view what, bool dtype_ok) {
  if (!dtype_ok || (bound.shape.known_rank() && bound.shape.rank() != 0)) {
    return InvalidArgumentError(fn, ": the expression gives ", bound.dtype, bound.shape, ", not ", what);
  }
  return OkStatus();
}

Result<Tensor> EvaluateScalar(std::string_view fn, const BoundExpression& bound, const Element& element) {
  SLUICE_ASSIGN_OR_RETURN(Tensor value, EvaluateExpression(bound, element));
  if (value.rank() != 0) {
    return InvalidArgumentError(fn, ": the expression gave shape ", value.shape(), " for this element, not a scalar");
  }
  return value;
}

class ExpressionFunction final : public ElementFunction {
 public:
  ExpressionFunction(std::vector<ExpressionOutput> outputs, ExpressionFunctionOptions options)
      : outputs_(std::move(outputs)), options_(options), name_(MakeName()) {}

  std::string name() const override { return name_; }

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    std::vector<ComponentSpec> out_spec = options_.keep_inputs ? input.components() : std::vector<ComponentSpec>();
    std::vector<BoundExpression> bound;
    std::vector<size_t> slots;  // the output component each expression writes
    bool row_wise = true;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      Result<BoundExpression> b = BindExpression(outputs_[i].expression.proto(), input, StrCat("outputs[", i, "]"));
      if (!b.ok()) return b.status().WithContext(name_);
      row_wise = row_wise && IsRowWise(*b, input);
      const ComponentSpec component{.name = outputs_[i].name, .dtype = b->dtype, .shape = b->shape};
      size_t slot = out_spec.size();
      for (size_t j = 0; options_.keep_inputs && j < input.size(); ++j) {
        if (input[j].name == outputs_[i].name) slot = j;
      }
      if (slot == out_spec.size()) {
        out_spec.push_back(component);
      } else {
        out_spec[slot] = component;
      }
      slots.push_back(slot);
      bound.push_back(*std::move(b));
    }
    auto apply = [name = name_, arity = input.size(), out_size = out_spec.size(), keep = options_.keep_inputs,
                  bound = std::move(bound), slots = std::move(slots)](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      std::vector<Tensor> values;
      values.reserve(bound.size());
      for (const BoundExpression& b : bound) {
        Result<Tensor> value = EvaluateExpression(b, element);
        if (!value.ok()) return value.status().WithContext(name);
        values.push_back(*std::move(value));
      }
      Element out;
      if (keep) out = std::move(element);
      out.components.resize(out_size);
      for (size_t i = 0; i < values.size(); ++i) out.components[slots[i]] = std::move(values[i]);
      return out;
    };
    return BoundElementFunction{.output_spec = ElementSpec(std::move(out_spec)), .apply = std::move(apply), .row_wise = row_wise};
  }

  Status ToSpec(spec::ElementFunction* out) const override {
    spec::ExpressionFunction* fn = out->mutable_expression();
    for (const ExpressionOutput& output : outputs_) {
      spec::ExpressionFunction::Output* o = fn->add_output();
      o->set_name(output.name);
      *o->mutable_expression() = output.expression.proto();
    }
    fn->set_keep_inputs(options_.keep_inputs);
    return OkStatus();
  }

 private:
  std::string MakeName() const {
    std::string out = options_.keep_inputs ? "expression(keep inputs; " : "expression(";
    for (size_t i = 0; i < outputs_.size(); ++i) {
      out += StrCat(i > 0 ? ", " : "", outputs_[i].name, " = ", outputs_[i].expression.ToString());
    }
    return out + ")";
  }

  const std::vector<ExpressionOutput> outputs_;
  const ExpressionFunctionOptions options_;
  const std::string name_;
};

class ExpressionPredicate final : public Predicate {
 public:
  explicit ExpressionPredicate(Expr condition)
      : condition_(std::move(condition)), name_(StrCat("expression(", condition_.ToString(), ")")) {}

  std::string name() const override { return name_; }
  Result<BoundPredicate> Bind(const ElementSpec& input) const override {
    Result<BoundExpression> bound = BindExpression(condition_.proto(), input, "predicate");
    if (!bound.ok()) return bound.status().WithContext(name_);
    SLUICE_RETURN_IF_ERROR(CheckScalar(name_, *bound, "a bool scalar", bound->dtype == DType::kBool));
    return BoundPredicate([name = name_, arity = input.size(), bound = *std::move(bound)](const Element& element) -> Result<bool> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      Result<Tensor> value = EvaluateScalar(name, bound, element);
      if (!value.ok()) return value.status().WithContext(name);
      return value->scalar<bool>();
    });
  }
  Status ToSpec(spec::Predicate* out) const override {
    *out->mutable_expression() = condition_.proto();
    return OkStatus();
  }

 private:
  const Expr condition_;
  const std::string name_;
};

Status CheckOutputNames(const std::vector<ExpressionOutput>& outputs) {
  if (outputs.empty()) return InvalidArgumentError("expression: at least one output is required");
  std::set<std::string> seen;
  for (const ExpressionOutput& output : outputs) {
    if (output.name.empty()) return InvalidArgumentError("expression: output names must not be empty");
    if (!seen.insert(output.name).second) {
      return InvalidArgumentError("expression: output '", output.name, "' is listed twice");
    }
  }
  return OkStatus();
}

}  // namespace

Result<ElementFunctionPtr> MakeExpressionFunction(std::vector<ExpressionOutput> outputs,
                                                  ExpressionFunctionOptions options) {
  SLUICE_RETURN_IF_ERROR(CheckOutputNames(outputs));
  return ElementFunctionPtr(std::make_shared<ExpressionFunction>(std::move(outputs), options));
}

Result<ElementFunctionPtr> MakeExpressionFunction(const std::vector<std::pair<std::string, std::string>>& outputs,
                                                  ExpressionFunctionOptions options) {
  std::vector<ExpressionOutput> parsed;
  for (const auto& [name, text] : outputs) {
    Result<Expr> expression = Expr::Parse(text);
    if (!expression.ok()) return expression.status().WithContext(StrCat("expression: output ", name));
    parsed.push_back({name, *std::move(expression)});
  }
  return MakeExpressionFunction(std::move(parsed), options);
}

Result<PredicatePtr> MakeExpressionPredicate(Expr condition) {
  return PredicatePtr(std::make_shared<ExpressionPredicate>(std::move(condition)));
}

Result<PredicatePtr> MakeExpressionPredicate(std::string_view text) {
  Result<Expr> condition = Expr::Parse(text);
  if (!condition.ok()) return condition.status().WithContext("expression predicate");
  return MakeExpressionPredicate(*std::move(condition));
}

Result<std::function<Result<int64_t>(const Element&)>> BindLengthExpression(const Expr& length,
                                                                            const ElementSpec& input) {
  const std::string name = StrCat("length expression ", length.ToString());
  Result<BoundExpression> bound = BindExpression(length.proto(), input, "length");
  if (!bound.ok()) return bound.status().WithContext(name);
  SLUICE_RETURN_IF_ERROR(CheckScalar(name, *bound, "an integer scalar", IsInteger(bound->dtype)));
  return std::function<Result<int64_t>(const Element&)>(
      [name, arity = input.size(), bound = *std::move(bound)](const Element& element) -> Result<int64_t> {
        SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
        Result<Tensor> value = EvaluateScalar(name, bound, element);
        if (!value.ok()) return value.status().WithContext(name);
        return VisitNumericDType(value->dtype(),
                                 [&](auto zero) { return ConvertValue<int64_t>(value->scalar<decltype(zero)>()); });
      });
}

Result<Expr> ExpressionFromSpec(const spec::Expression& expression) {
  spec::Expression parsed = expression;
  SLUICE_RETURN_IF_ERROR(ParseTextNodes(&parsed, 0));
  return Expr::FromProto(parsed);
}

Result<ElementFunctionPtr> ExpressionFunctionFromSpec(const spec::ExpressionFunction& fn) {
  std::vector<ExpressionOutput> outputs;
  for (int i = 0; i < fn.output_size(); ++i) {
    const spec::ExpressionFunction::Output& output = fn.output(i);
    if (output.has_expression() == !output.text().empty()) {
      return InvalidArgumentError("expression: output ", i, " ('", output.name(),
                                  "') must set exactly one of expression and text");
    }
    spec::Expression expression = output.expression();
    if (!output.text().empty()) expression.set_text(output.text());
    Result<Expr> parsed = ExpressionFromSpec(expression);
    if (!parsed.ok()) return parsed.status().WithContext(StrCat("expression: output ", output.name()));
    outputs.push_back({output.name(), *std::move(parsed)});
  }
  return MakeExpressionFunction(std::move(outputs), {.keep_inputs = fn.keep_inputs()});
}

Result<PredicatePtr> ExpressionPredicateFromSpec(const spec::Expression& condition) {
  Result<Expr> parsed = ExpressionFromSpec(condition);
  if (!parsed.ok()) return parsed.status().WithContext("expression predicate");
  return MakeExpressionPredicate(*std::move(parsed));
}

}  // namespace sluice

// Functions built from expressions (dataset/expression.h), serializable in
// pipeline specs like the built-ins (builtin_functions.h):
// - the expression function (for map): one output component per named
//   expression, optionally after the input components;
// - the expression predicate (for filter): a bool scalar expression;
// - the length expression of bucket_by_sequence_length: an integer scalar.
//
// Binding checks every expression against the input spec once (errors
// name the function, the expression's position and the operands' types).
// A map function whose every output is row-wise (expression_bind.h,
// IsRowWise) says so, and map then evaluates it once per run of elements.
// Thread safety: functions are immutable; Bind and what it returns may be
// called concurrently.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sluice/dataset/expression.h"
#include "sluice/dataset/functions.h"

namespace sluice {

// One output component: its name and the expression giving its value.
struct ExpressionOutput {
  std::string name;
  Expr expression;
};

struct ExpressionFunctionOptions {
  // Keep the input components, followed by the outputs; an output named
  // like an input component replaces it in place. Default: only the outputs.
  bool keep_inputs = false;
};

// At least one output; names non-empty and distinct.
Result<ElementFunctionPtr> MakeExpressionFunction(std::vector<ExpressionOutput> outputs,
                                                  ExpressionFunctionOptions options = {});
// The same from (name, infix text) pairs: MakeExpressionFunction({{"y", "x * 0.5 + 1"}});
// a syntax error names the output and the column.
Result<ElementFunctionPtr> MakeExpressionFunction(const std::vector<std::pair<std::string, std::string>>& outputs,
                                                  ExpressionFunctionOptions options = {});

// Keeps the elements for which `condition` (a bool scalar) is true.
Result<PredicatePtr> MakeExpressionPredicate(Expr condition);
Result<PredicatePtr> MakeExpressionPredicate(std::string_view text);

// `length` (an integer scalar expression) bound to `input`, as
// bucket_by_sequence_length's length function.
Result<std::function<Result<int64_t>(const Element&)>> BindLengthExpression(const Expr& length,
                                                                            const ElementSpec& input);

namespace spec {
class ExpressionFunction;
class Expression;
}  // namespace spec

// The function or predicate a spec message describes (the inverse of
// ToSpec); text forms are parsed here, so a syntax error surfaces when the
// spec is read.
Result<ElementFunctionPtr> ExpressionFunctionFromSpec(const spec::ExpressionFunction& fn);
Result<PredicatePtr> ExpressionPredicateFromSpec(const spec::Expression& condition);
// A spec's expression with its text forms parsed (an error names the column).
Result<Expr> ExpressionFromSpec(const spec::Expression& expression);

}  // namespace sluice

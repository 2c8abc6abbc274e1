// The operators of pipeline expressions (dataset/expression.h), as one
// table that the printer, the parser and the type checker share: each op's
// text name, its infix symbol and precedence where it has one, and how many
// arguments it takes. Internal to the expression_*.cc files.
// Thread safety: immutable data.
#pragma once

#include <string_view>

#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {

using ExpressionOp = spec::Expression::Op;

struct ExpressionOpInfo {
  ExpressionOp op;
  // The name of the function form, "add(a, b)": what errors name the op by.
  std::string_view name;
  // Infix or prefix symbol ("+", "-", "not"); empty for function-only ops.
  std::string_view symbol;
  // Binding strength of the symbol form: or 1, and 2, not 3, comparisons 4,
  // + - 5, * / % 6, prefix minus 7. 0 for function-only ops.
  int precedence;
  int min_args;
  int max_args;  // -1: any number (concat)
};

// The entry for `op`; nullptr for OP_UNSPECIFIED or an unknown value.
const ExpressionOpInfo* FindExpressionOp(ExpressionOp op);
// The entry whose function name is `name`; nullptr when there is none.
const ExpressionOpInfo* FindExpressionFunction(std::string_view name);
// The binary infix entry spelled `symbol` ("+", "<=", "and"); nullptr when none.
const ExpressionOpInfo* FindInfixOp(std::string_view symbol);

}  // namespace sluice

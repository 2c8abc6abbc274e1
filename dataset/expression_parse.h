// Reads the infix text of a pipeline expression (dataset/expression.h) into
// its tree, the inverse of PrintExpression (expression_print.h). The
// grammar is in docs/ops.md ("Expressions"); in short, loosest first:
//   or, and, not, comparisons (== != < <= > >=, not chained), + -, * / %,
//   prefix -, then operands: numbers (1, 0.5, 1e-3, inf, nan: untyped
//   literals that take their operand's dtype), "strings", true, false,
//   lists [1, 2], typed constants int64(3) / float32([1, 2]), component
//   names (x, or `any name` in backticks), calls f(args), and ( ).
// An error is InvalidArgument naming the text, the 1-based column and what
// was expected there. Nesting is limited to kMaxExpressionDepth and a list
// literal to kMaxLiteralValues values, since the text comes from specs.
// Thread safety: pure functions.
#pragma once

#include <string_view>

#include "sluice/core/status.h"

namespace sluice {

namespace spec {
class Expression;
}  // namespace spec

inline constexpr int kMaxExpressionDepth = 64;
inline constexpr int kMaxLiteralValues = 4096;

Result<spec::Expression> ParseExpression(std::string_view text);

// True when `name` reads as a bare component name: [A-Za-z_][A-Za-z0-9_]*
// and not a keyword (and, or, not, true, false, inf, nan).
bool IsPlainIdentifier(std::string_view name);

}  // namespace sluice

// The infix text of a pipeline expression (dataset/expression.h), as
// `describe` shows it and ParseExpression (expression_parse.h) reads it
// back to the same tree: "x * 0.5 + 1", "where(label > 0, 1, 0)",
// "cast(length(tokens), int32)". Parentheses appear only where precedence
// needs them; floats print in their shortest form that reads back exactly.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace sluice {

namespace spec {
class Expression;
}  // namespace spec

std::string PrintExpression(const spec::Expression& expression);

// A component name as the text form spells it: bare when it is an
// identifier that is not a keyword, else in backticks (`0`, `image/raw`).
std::string PrintComponentName(std::string_view name);

}  // namespace sluice

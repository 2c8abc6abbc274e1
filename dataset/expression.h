// Expr: a typed expression over the components of one element, the
// serializable form of a map's, filter's or bucket length's function
// (docs/ops.md, "Expressions"; dataset/expression_functions.h makes the
// functions). An Expr is a tree held as a spec::Expression message:
// component references, constants, arithmetic, comparisons, logic, casts,
// math, where, shape / size / length, slicing and concatenation along an
// axis, string length and equality.
//
// Build one in C++ with operators, or from its infix text:
//   Expr y = expr::Col("x") * 0.5 + 1;
//   Result<Expr> z = Expr::Parse("where(label > 0, 1, 0)");
// Numbers (0.5, 1) are untyped literals that take the dtype of the operand
// they meet; operands of different dtypes are an error when bound (cast one
// of them). Types and shapes are checked when a function using the
// expression is bound to an input spec.
// Thread safety: an immutable value; copies share the tree.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

namespace spec {
class Expression;
}  // namespace spec

class Expr {
 public:
  Expr(double value);   // NOLINT: an untyped float literal
  Expr(int value);      // NOLINT: an untyped integer literal
  Expr(int64_t value);  // NOLINT: an untyped integer literal
  // The expression of an infix text (dataset/expression_parse.h);
  // InvalidArgument naming the column of a syntax error.
  static Result<Expr> Parse(std::string_view text);
  // A spec's expression (not checked until bound).
  static Expr FromProto(const spec::Expression& proto);

  const spec::Expression& proto() const { return *node_; }
  // The infix text, as `describe` shows it.
  std::string ToString() const;

 private:
  friend Expr MakeExpr(spec::Expression node);
  explicit Expr(std::shared_ptr<const spec::Expression> node) : node_(std::move(node)) {}

  std::shared_ptr<const spec::Expression> node_;
};

Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator*(const Expr& a, const Expr& b);
Expr operator/(const Expr& a, const Expr& b);  // integers: truncates toward zero
Expr operator%(const Expr& a, const Expr& b);  // integers: the dividend's sign
Expr operator-(const Expr& x);
Expr operator==(const Expr& a, const Expr& b);
Expr operator!=(const Expr& a, const Expr& b);
Expr operator<(const Expr& a, const Expr& b);
Expr operator<=(const Expr& a, const Expr& b);
Expr operator>(const Expr& a, const Expr& b);
Expr operator>=(const Expr& a, const Expr& b);
Expr operator&&(const Expr& a, const Expr& b);  // bool operands; both sides are evaluated
Expr operator||(const Expr& a, const Expr& b);
Expr operator!(const Expr& x);

namespace expr {

// The component named `name` (or at position "0", "1", ...).
Expr Col(std::string name);
// A typed constant: its dtype is `value`'s (a scalar or a small tensor).
Expr Constant(const Tensor& value);
Expr Cast(const Expr& x, DType dtype);
Expr Abs(const Expr& x);
Expr Min(const Expr& a, const Expr& b);
Expr Max(const Expr& a, const Expr& b);
Expr Clip(const Expr& x, const Expr& low, const Expr& high);
Expr Exp(const Expr& x);
Expr Log(const Expr& x);
Expr Sqrt(const Expr& x);
Expr Floor(const Expr& x);
Expr Round(const Expr& x);  // half to even
Expr Where(const Expr& condition, const Expr& a, const Expr& b);
Expr Shape(const Expr& x);   // int64 vector
Expr Size(const Expr& x);    // int64 scalar: the element count
Expr Length(const Expr& x);  // int64 scalar: the size along axis 0
// x[begin:end] along `axis`, as Python slices (negative counts from the end).
Expr Slice(const Expr& x, int64_t axis, int64_t begin, std::optional<int64_t> end = std::nullopt);
Expr Concat(int64_t axis, const std::vector<Expr>& values);
Expr StringLength(const Expr& x);  // int32: bytes per string

}  // namespace expr
}  // namespace sluice

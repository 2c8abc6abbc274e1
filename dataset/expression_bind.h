// Binding a pipeline expression (dataset/expression.h) to an input spec:
// resolves component names to positions, checks every node's operand
// dtypes and shapes once, and gives each node its output dtype and partial
// shape. What comes out is evaluated by EvaluateExpression
// (expression_evaluate.h). Internal to the expression_*.cc files.
//
// Errors are InvalidArgument naming the node's position (a path such as
// "outputs[0].args[1]"), the operator, and the operands' texts, dtypes and
// shapes: "outputs[0]: add: args[0] (x) is float32[32] but args[1] (n) is
// int32[]; cast one of them".
//
// Untyped literals (constants with no dtype: 1, 0.5) take the dtype of the
// operand they meet; an integer literal fits any numeric dtype whose range
// holds it, a float literal only a floating one. A node whose operands are
// all constants is folded into a constant at bind time. A literal that
// meets no typed operand is int64 (integers) or float32.
// Thread safety: BoundExpression is immutable once bound; evaluate it from
// any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/ops/elementwise_binary.h"
#include "sluice/ops/elementwise_unary.h"

namespace sluice {

namespace spec {
class Expression;
}  // namespace spec

struct BoundExpression {
  enum class Kind { kComponent, kConstant, kUnary, kBinary, kCast, kWhere, kShape, kSize, kLength, kSlice, kConcat };
  Kind kind = Kind::kConstant;
  DType dtype = DType::kFloat32;  // of the node's output (kCast: the target)
  PartialShape shape;             // of the node's output
  // An untyped literal (a constant only): held as int64 or float64 until an
  // operand gives it a dtype.
  bool untyped = false;
  std::string path;  // "outputs[0].args[1]": for errors at evaluation

  size_t component = 0;        // kComponent: its position in the element
  Tensor constant;             // kConstant
  UnaryOp unary_op = UnaryOp::kNeg;
  BinaryOp binary_op = BinaryOp::kAdd;
  int64_t axis = 0;            // kSlice, kConcat
  int64_t begin = 0;           // kSlice
  std::optional<int64_t> end;  // kSlice
  std::vector<BoundExpression> args;
};

// Binds `expression` to `input`; `path` names its root in errors
// ("outputs[0]", "predicate"). The result is never untyped.
Result<BoundExpression> BindExpression(const spec::Expression& expression, const ElementSpec& input,
                                       const std::string& path);

// True when every node is element-wise and evaluating it on a run of
// elements (each component with a leading dimension added) equals
// evaluating each element and stacking: its components all have one known
// rank r, it references at least one, and its constants have rank <= r.
bool IsRowWise(const BoundExpression& expression, const ElementSpec& input);

}  // namespace sluice

#include "sluice/dataset/expression.h"

#include "sluice/dataset/expression_parse.h"
#include "sluice/dataset/expression_print.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {

Expr MakeExpr(spec::Expression node) { return Expr(std::make_shared<const spec::Expression>(std::move(node))); }

namespace {

using E = spec::Expression;

Expr Call(E::Op op, std::initializer_list<const Expr*> args) {
  E node;
  node.mutable_call()->set_op(op);
  for (const Expr* arg : args) *node.mutable_call()->add_args() = arg->proto();
  return MakeExpr(std::move(node));
}

E IntegerLiteral(int64_t value) {
  E node;
  node.mutable_constant()->add_int_values(value);
  return node;
}

}  // namespace

Expr::Expr(double value) {
  E node;
  node.mutable_constant()->add_float_values(value);
  node_ = std::make_shared<const E>(std::move(node));
}
Expr::Expr(int value) : Expr(static_cast<int64_t>(value)) {}
Expr::Expr(int64_t value) : node_(std::make_shared<const E>(IntegerLiteral(value))) {}

Result<Expr> Expr::Parse(std::string_view text) {
  SLUICE_ASSIGN_OR_RETURN(E node, ParseExpression(text));
  return MakeExpr(std::move(node));
}

Expr Expr::FromProto(const spec::Expression& proto) { return MakeExpr(proto); }

std::string Expr::ToString() const { return PrintExpression(*node_); }

Expr operator+(const Expr& a, const Expr& b) { return Call(E::ADD, {&a, &b}); }
Expr operator-(const Expr& a, const Expr& b) { return Call(E::SUB, {&a, &b}); }
Expr operator*(const Expr& a, const Expr& b) { return Call(E::MUL, {&a, &b}); }
Expr operator/(const Expr& a, const Expr& b) { return Call(E::DIV, {&a, &b}); }
Expr operator%(const Expr& a, const Expr& b) { return Call(E::MOD, {&a, &b}); }
Expr operator-(const Expr& x) { return Call(E::NEG, {&x}); }
Expr operator==(const Expr& a, const Expr& b) { return Call(E::EQUAL, {&a, &b}); }
Expr operator!=(const Expr& a, const Expr& b) { return Call(E::NOT_EQUAL, {&a, &b}); }
Expr operator<(const Expr& a, const Expr& b) { return Call(E::LESS, {&a, &b}); }
Expr operator<=(const Expr& a, const Expr& b) { return Call(E::LESS_EQUAL, {&a, &b}); }
Expr operator>(const Expr& a, const Expr& b) { return Call(E::GREATER, {&a, &b}); }
Expr operator>=(const Expr& a, const Expr& b) { return Call(E::GREATER_EQUAL, {&a, &b}); }
Expr operator&&(const Expr& a, const Expr& b) { return Call(E::AND, {&a, &b}); }
Expr operator||(const Expr& a, const Expr& b) { return Call(E::OR, {&a, &b}); }
Expr operator!(const Expr& x) { return Call(E::NOT, {&x}); }

namespace expr {

Expr Col(std::string name) {
  E node;
  node.set_component(std::move(name));
  return MakeExpr(std::move(node));
}

Expr Constant(const Tensor& value) {
  E node;
  TensorToProto(value, node.mutable_constant());
  return MakeExpr(std::move(node));
}

Expr Cast(const Expr& x, DType dtype) {
  E node = Call(E::CAST, {&x}).proto();
  node.mutable_call()->set_dtype(std::string(DTypeName(dtype)));
  return MakeExpr(std::move(node));
}

Expr Abs(const Expr& x) { return Call(E::ABS, {&x}); }
Expr Min(const Expr& a, const Expr& b) { return Call(E::MIN, {&a, &b}); }
Expr Max(const Expr& a, const Expr& b) { return Call(E::MAX, {&a, &b}); }
Expr Clip(const Expr& x, const Expr& low, const Expr& high) { return Call(E::CLIP, {&x, &low, &high}); }
Expr Exp(const Expr& x) { return Call(E::EXP, {&x}); }
Expr Log(const Expr& x) { return Call(E::LOG, {&x}); }
Expr Sqrt(const Expr& x) { return Call(E::SQRT, {&x}); }
Expr Floor(const Expr& x) { return Call(E::FLOOR, {&x}); }
Expr Round(const Expr& x) { return Call(E::ROUND, {&x}); }
Expr Where(const Expr& condition, const Expr& a, const Expr& b) { return Call(E::WHERE, {&condition, &a, &b}); }
Expr Shape(const Expr& x) { return Call(E::SHAPE, {&x}); }
Expr Size(const Expr& x) { return Call(E::SIZE, {&x}); }
Expr Length(const Expr& x) { return Call(E::LENGTH, {&x}); }
Expr StringLength(const Expr& x) { return Call(E::STRING_LENGTH, {&x}); }

Expr Slice(const Expr& x, int64_t axis, int64_t begin, std::optional<int64_t> end) {
  E node = Call(E::SLICE, {&x}).proto();
  node.mutable_call()->set_axis(axis);
  node.mutable_call()->set_begin(begin);
  if (end.has_value()) node.mutable_call()->set_end(*end);
  return MakeExpr(std::move(node));
}

Expr Concat(int64_t axis, const std::vector<Expr>& values) {
  E node;
  node.mutable_call()->set_op(E::CONCAT);
  node.mutable_call()->set_axis(axis);
  for (const Expr& value : values) *node.mutable_call()->add_args() = value.proto();
  return MakeExpr(std::move(node));
}

}  // namespace expr
}  // namespace sluice

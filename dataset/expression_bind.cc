#include "sluice/dataset/expression_bind.h"

#include <algorithm>
#include <cmath>

#include "sluice/dataset/expression_evaluate.h"
#include "sluice/dataset/expression_ops.h"
#include "sluice/dataset/expression_parse.h"
#include "sluice/dataset/expression_print.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"
#include "sluice/ops/cast.h"
#include "sluice/ops/slice_axis.h"

namespace sluice {
namespace {

using Kind = BoundExpression::Kind;
using E = spec::Expression;

// "float32[32]": a node's type in errors.
std::string TypeOf(const BoundExpression& e) {
  return e.untyped ? (e.dtype == DType::kInt64 ? "an integer literal" : "a float literal")
                   : StrCat(e.dtype, e.shape);
}

// "args[1] (n) is int32[]".
std::string Describe(const E::Call& call, int i, const BoundExpression& arg) {
  return StrCat("args[", i, "] (", PrintExpression(call.args(i)), ") is ", TypeOf(arg));
}

// The broadcast of two partial shapes, as BroadcastShapes for known dims;
// an unknown dim broadcasts with anything.
Result<PartialShape> BroadcastPartial(const PartialShape& a, const PartialShape& b) {
  if (!a.known_rank() || !b.known_rank()) return PartialShape::UnknownRank();
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    const int ia = i - (rank - a.rank());
    const int ib = i - (rank - b.rank());
    const int64_t da = ia >= 0 ? a.dim(ia) : 1;
    const int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da == kUnknownDim || db == kUnknownDim) {
      dims[i] = da == kUnknownDim ? db : da;
    } else if (da == db) {
      dims[i] = da;
    } else {
      return InvalidArgumentError("shapes ", a, " and ", b, " do not broadcast");
    }
  }
  return PartialShape(dims);
}

// The untyped literal `e` as a constant of `dtype`, or an error saying why
// it cannot take it.
Status TypeLiteral(BoundExpression& e, DType dtype) {
  const bool float_literal = e.dtype == DType::kFloat64;
  if (dtype == DType::kString || (float_literal && !IsFloating(dtype)) || (!float_literal && dtype == DType::kBool)) {
    return InvalidArgumentError(TypeOf(e), " cannot take dtype ", dtype);
  }
  if (!float_literal && IsInteger(dtype)) {
    const IntegerBounds bounds = IntegerBoundsOf(dtype);
    const int64_t* values = e.constant.data<int64_t>();
    for (int64_t i = 0; i < e.constant.NumElements(); ++i) {
      if (!bounds.Contains(values[i])) {
        return InvalidArgumentError("the integer literal ", values[i], " is outside the range of ", dtype);
      }
    }
  }
  SLUICE_ASSIGN_OR_RETURN(e.constant, Cast(e.constant, dtype));
  e.dtype = dtype;
  e.untyped = false;
  return OkStatus();
}

// Gives an untyped literal its default dtype: int64 or float32.
Status TypeLiteralByDefault(BoundExpression& e) {
  if (!e.untyped) return OkStatus();
  return TypeLiteral(e, e.dtype == DType::kInt64 ? DType::kInt64 : DType::kFloat32);
}

class Binder {
 public:
  explicit Binder(const ElementSpec& input) : input_(input) {}

  Result<BoundExpression> Bind(const E& e, const std::string& path, int depth) {
    if (depth > kMaxExpressionDepth) {
      return InvalidArgumentError(path, ": the expression nests deeper than ", kMaxExpressionDepth, " levels");
    }
    switch (e.node_case()) {
      case E::kComponent: return BindComponent(e.component(), path);
      case E::kConstant: return BindConstant(e.constant(), path);
      case E::kText: {
        Result<E> parsed = ParseExpression(e.text());
        if (!parsed.ok()) return parsed.status().WithContext(path);
        return Bind(*parsed, path, depth + 1);
      }
      case E::kCall: return BindCall(e.call(), path, depth);
      case E::NODE_NOT_SET: break;
    }
    return InvalidArgumentError(path, ": the expression is empty (set a component, constant, call or text)");
  }

 private:
  Result<BoundExpression> BindComponent(const std::string& name, const std::string& path) {
    Result<size_t> index = input_.IndexOf(name);
    if (!index.ok()) return index.status().WithContext(path);
    BoundExpression out;
    out.kind = Kind::kComponent;
    out.component = *index;
    out.dtype = input_[*index].dtype;
    out.shape = input_[*index].shape;
    out.path = path;
    return out;
  }

  Result<BoundExpression> BindConstant(const spec::TensorProto& proto, const std::string& path) {
    spec::TensorProto typed = proto;
    const bool untyped = proto.dtype().empty() && proto.string_values_size() == 0;
    if (proto.dtype().empty()) {
      typed.set_dtype(proto.string_values_size() > 0 ? "string" : proto.float_values_size() > 0 ? "float64" : "int64");
    }
    Result<Tensor> value = TensorFromProto(typed);
    if (!value.ok()) return value.status().WithContext(StrCat(path, ": constant"));
    BoundExpression out;
    out.kind = Kind::kConstant;
    out.constant = *std::move(value);
    out.dtype = out.constant.dtype();
    out.shape = out.constant.shape();
    out.untyped = untyped;
    out.path = path;
    return out;
  }

  // Gives the operands `indices` of `args` one dtype: that of the typed
  // ones (which must agree), taken by the untyped literals among them. All
  // untyped: they stay untyped, as float64 if any is a float literal.
  Status Unify(const E::Call& call, std::vector<BoundExpression>& args, std::initializer_list<int> indices,
               std::string_view op) {
    const BoundExpression* typed = nullptr;
    int typed_index = -1;
    for (int i : indices) {
      if (args[i].untyped) continue;
      if (typed == nullptr) {
        typed = &args[i];
        typed_index = i;
      } else if (args[i].dtype != typed->dtype) {
        return InvalidArgumentError(op, ": ", Describe(call, typed_index, *typed), " but ", Describe(call, i, args[i]),
                                    "; cast one of them (operands must have one dtype)");
      }
    }
    if (typed == nullptr) {
      const bool any_float = std::any_of(indices.begin(), indices.end(), [&](int i) { return args[i].dtype == DType::kFloat64; });
      if (!any_float) return OkStatus();
      for (int i : indices) {
        if (args[i].dtype == DType::kInt64) {
          SLUICE_ASSIGN_OR_RETURN(args[i].constant, Cast(args[i].constant, DType::kFloat64));
          args[i].dtype = DType::kFloat64;
        }
      }
      return OkStatus();
    }
    for (int i : indices) {
      if (!args[i].untyped) continue;
      Status typed_status = TypeLiteral(args[i], typed->dtype);
      if (!typed_status.ok()) {
        return InvalidArgumentError(op, ": args[", i, "] (", PrintExpression(call.args(i)), "): ", typed_status.message(),
                                    ", the dtype of ", Describe(call, typed_index, *typed));
      }
    }
    return OkStatus();
  }

  Result<PartialShape> Broadcast(const E::Call& call, const std::vector<BoundExpression>& args,
                                 std::initializer_list<int> indices, std::string_view op) {
    PartialShape shape;
    int first = -1;
    for (int i : indices) {
      if (first < 0) {
        shape = args[i].shape;
        first = i;
        continue;
      }
      Result<PartialShape> next = BroadcastPartial(shape, args[i].shape);
      if (!next.ok()) {
        return InvalidArgumentError(op, ": ", Describe(call, first, args[first]), " and ", Describe(call, i, args[i]),
                                    ": the shapes do not broadcast");
      }
      shape = *next;
    }
    return shape;
  }

  Result<BoundExpression> BindCall(const E::Call& call, const std::string& path, int depth) {
    const ExpressionOpInfo* info = FindExpressionOp(call.op());
    if (info == nullptr) return InvalidArgumentError(path, ": unknown operator ", static_cast<int>(call.op()));
    const int n = call.args_size();
    if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
      return InvalidArgumentError(path, ": ", info->name, " takes ", info->min_args,
                                  info->max_args == info->min_args ? "" : " or more", " arguments, got ", n);
    }
    BoundExpression out;
    out.path = path;
    for (int i = 0; i < n; ++i) {
      SLUICE_ASSIGN_OR_RETURN(BoundExpression arg, Bind(call.args(i), StrCat(path, ".args[", i, "]"), depth + 1));
      out.args.push_back(std::move(arg));
    }
    Status typed = Type(call, *info, out);
    if (!typed.ok()) return typed.WithContext(path);
    return Fold(std::move(out));
  }

  // Checks the operands of `out` (a call) and sets its kind, dtype and shape.
  Status Type(const E::Call& call, const ExpressionOpInfo& info, BoundExpression& out) {
    std::vector<BoundExpression>& args = out.args;
    const std::string_view op = info.name;
    switch (call.op()) {
      case E::ADD: case E::SUB: case E::MUL: case E::DIV: case E::MOD: case E::MIN: case E::MAX:
      case E::EQUAL: case E::NOT_EQUAL: case E::LESS: case E::LESS_EQUAL: case E::GREATER: case E::GREATER_EQUAL:
      case E::AND: case E::OR: {
        out.kind = Kind::kBinary;
        out.binary_op = ToBinaryOp(call.op());
        SLUICE_RETURN_IF_ERROR(Unify(call, args, {0, 1}, op));
        SLUICE_ASSIGN_OR_RETURN(out.shape, Broadcast(call, args, {0, 1}, op));
        return TypeBinary(call, out, op);
      }
      case E::CLIP: {
        // clip(x, low, high) = min(max(x, low), high).
        SLUICE_RETURN_IF_ERROR(Unify(call, args, {0, 1, 2}, op));
        SLUICE_ASSIGN_OR_RETURN(const PartialShape shape, Broadcast(call, args, {0, 1, 2}, op));
        BoundExpression high = std::move(args[2]);
        args.pop_back();
        BoundExpression low_bounded = std::move(out);
        low_bounded.kind = Kind::kBinary;
        low_bounded.binary_op = BinaryOp::kMax;
        SLUICE_RETURN_IF_ERROR(TypeBinary(call, low_bounded, op));
        // x and low broadcast: the three did, x and low first.
        low_bounded.shape = *BroadcastPartial(low_bounded.args[0].shape, low_bounded.args[1].shape);
        out = BoundExpression();
        out.path = low_bounded.path;
        out.kind = Kind::kBinary;
        out.binary_op = BinaryOp::kMin;
        out.shape = shape;
        SLUICE_ASSIGN_OR_RETURN(BoundExpression folded, Fold(std::move(low_bounded)));
        out.args.push_back(std::move(folded));
        out.args.push_back(std::move(high));
        return TypeBinary(call, out, op);
      }
      case E::NEG: case E::ABS: case E::EXP: case E::LOG: case E::SQRT: case E::FLOOR: case E::ROUND:
      case E::NOT: case E::STRING_LENGTH: {
        out.kind = Kind::kUnary;
        out.unary_op = ToUnaryOp(call.op());
        const bool floating_only = call.op() == E::EXP || call.op() == E::LOG || call.op() == E::SQRT ||
                                   call.op() == E::FLOOR || call.op() == E::ROUND;
        if (args[0].untyped) {
          if (!floating_only && (call.op() == E::NEG || call.op() == E::ABS)) {
            out.untyped = true;  // stays a literal: folded below
          } else {
            SLUICE_RETURN_IF_ERROR(TypeLiteral(args[0], floating_only ? DType::kFloat32 : DType::kInt64));
          }
        }
        out.shape = args[0].shape;
        if (out.untyped) {
          out.dtype = args[0].dtype;
          return OkStatus();
        }
        Result<DType> dtype = UnaryOutputDType(out.unary_op, args[0].dtype);
        if (!dtype.ok()) return InvalidArgumentError(op, ": ", Describe(call, 0, args[0]), ": ", dtype.status().message());
        out.dtype = *dtype;
        return OkStatus();
      }
      case E::CAST: {
        out.kind = Kind::kCast;
        Result<DType> dtype = ParseDType(call.dtype());
        if (!dtype.ok()) return dtype.status().WithContext("cast: dtype");
        SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(args[0]));
        if ((args[0].dtype == DType::kString) != (*dtype == DType::kString)) {
          return InvalidArgumentError(op, ": ", Describe(call, 0, args[0]), ", which cannot be cast to ", *dtype,
                                      " (strings cast only to string)");
        }
        out.dtype = *dtype;
        out.shape = args[0].shape;
        return OkStatus();
      }
      case E::WHERE: {
        out.kind = Kind::kWhere;
        if (args[0].dtype != DType::kBool || args[0].untyped) {
          return InvalidArgumentError(op, ": the condition ", Describe(call, 0, args[0]), ", not bool");
        }
        SLUICE_RETURN_IF_ERROR(Unify(call, args, {1, 2}, op));
        SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(args[1]));
        SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(args[2]));
        out.dtype = args[1].dtype;
        SLUICE_ASSIGN_OR_RETURN(out.shape, Broadcast(call, args, {0, 1, 2}, op));
        return OkStatus();
      }
      case E::SHAPE: case E::SIZE: case E::LENGTH: {
        out.kind = call.op() == E::SHAPE ? Kind::kShape : call.op() == E::SIZE ? Kind::kSize : Kind::kLength;
        SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(args[0]));
        out.dtype = DType::kInt64;
        if (call.op() == E::SHAPE) out.shape = PartialShape({args[0].shape.known_rank() ? args[0].shape.rank() : kUnknownDim});
        if (call.op() == E::LENGTH && args[0].shape.rank() == 0) {
          return InvalidArgumentError(op, ": ", Describe(call, 0, args[0]), "; a scalar has no length (its size along axis 0)");
        }
        return OkStatus();
      }
      case E::SLICE: return TypeSlice(call, out);
      case E::CONCAT: return TypeConcat(call, out);
      case E::OP_UNSPECIFIED:
      default: break;
    }
    return InvalidArgumentError("the call has no operator");
  }

  Status TypeBinary(const E::Call& call, BoundExpression& out, std::string_view op) {
    const BoundExpression& a = out.args[0];
    if (a.untyped && out.args[1].untyped) {
      // Literal arithmetic stays untyped (and is folded); other operators type the literals first.
      if (out.binary_op <= BinaryOp::kMax) {
        out.untyped = true;
        out.dtype = a.dtype;
        return OkStatus();
      }
      SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(out.args[0]));
      SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(out.args[1]));
    }
    Result<DType> dtype = BinaryOutputDType(out.binary_op, out.args[0].dtype);
    if (!dtype.ok()) return InvalidArgumentError(op, ": ", Describe(call, 0, out.args[0]), ": ", dtype.status().message());
    out.dtype = *dtype;
    return OkStatus();
  }

  Status TypeSlice(const E::Call& call, BoundExpression& out) {
    BoundExpression& x = out.args[0];
    out.kind = Kind::kSlice;
    out.axis = call.axis();
    out.begin = call.begin();
    if (call.has_end()) out.end = call.end();
    SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(x));
    out.dtype = x.dtype;
    if (!x.shape.known_rank()) {
      out.shape = PartialShape::UnknownRank();
      return OkStatus();
    }
    const int rank = x.shape.rank();
    if (rank == 0 || out.axis < -rank || out.axis >= rank) {
      return InvalidArgumentError("slice: axis ", out.axis, " is outside [", -rank, ", ", rank, ") for ",
                                  Describe(call, 0, x));
    }
    std::vector<int64_t> dims(x.shape.dims().begin(), x.shape.dims().end());
    const size_t a = static_cast<size_t>(out.axis < 0 ? out.axis + rank : out.axis);
    if (dims[a] != kUnknownDim) {
      const SliceBounds bounds = ResolveSliceBounds(dims[a], out.begin, out.end);
      dims[a] = bounds.end - bounds.begin;
    }
    out.shape = PartialShape(dims);
    return OkStatus();
  }

  Status TypeConcat(const E::Call& call, BoundExpression& out) {
    std::vector<BoundExpression>& args = out.args;
    out.kind = Kind::kConcat;
    out.axis = call.axis();
    for (BoundExpression& arg : args) SLUICE_RETURN_IF_ERROR(TypeLiteralByDefault(arg));
    const BoundExpression& first = args[0];
    if (first.dtype == DType::kString) return InvalidArgumentError("concat: ", Describe(call, 0, first), "; concat takes numeric operands");
    if (!first.shape.known_rank()) {
      out.dtype = first.dtype;
      out.shape = PartialShape::UnknownRank();
      return OkStatus();
    }
    const int rank = first.shape.rank();
    if (rank == 0 || out.axis < -rank || out.axis >= rank) {
      return InvalidArgumentError("concat: axis ", out.axis, " is outside [", -rank, ", ", rank, ") for ",
                                  Describe(call, 0, first));
    }
    const int axis = static_cast<int>(out.axis < 0 ? out.axis + rank : out.axis);
    std::vector<int64_t> dims(first.shape.dims().begin(), first.shape.dims().end());
    for (size_t i = 1; i < args.size(); ++i) {
      const BoundExpression& arg = args[i];
      const int index = static_cast<int>(i);
      if (arg.dtype != first.dtype) {
        return InvalidArgumentError("concat: ", Describe(call, 0, first), " but ", Describe(call, index, arg),
                                    "; operands must have one dtype");
      }
      if (arg.shape.known_rank() && arg.shape.rank() != rank) {
        return InvalidArgumentError("concat: ", Describe(call, 0, first), " but ", Describe(call, index, arg),
                                    "; operands must have one rank");
      }
      for (int d = 0; d < rank && arg.shape.known_rank(); ++d) {
        const int64_t other = arg.shape.dim(d);
        if (d == axis) {
          dims[d] = dims[d] == kUnknownDim || other == kUnknownDim ? kUnknownDim : dims[d] + other;
        } else if (dims[d] != kUnknownDim && other != kUnknownDim && dims[d] != other) {
          return InvalidArgumentError("concat: ", Describe(call, 0, first), " but ", Describe(call, index, arg),
                                      "; dimensions other than the axis must agree");
        } else if (dims[d] == kUnknownDim) {
          dims[d] = other;
        }
      }
      if (!arg.shape.known_rank()) dims[axis] = kUnknownDim;
    }
    out.dtype = first.dtype;
    out.shape = PartialShape(dims);
    return OkStatus();
  }

  // A node whose operands are all constants, evaluated now.
  Result<BoundExpression> Fold(BoundExpression node) {
    if (node.kind == Kind::kConstant || node.kind == Kind::kComponent) return node;
    const bool constant = std::all_of(node.args.begin(), node.args.end(),
                                      [](const BoundExpression& arg) { return arg.kind == Kind::kConstant; });
    if (!constant) return node;
    SLUICE_ASSIGN_OR_RETURN(Tensor value, EvaluateExpression(node, Element()));
    BoundExpression out;
    out.kind = Kind::kConstant;
    out.dtype = value.dtype();
    out.shape = value.shape();
    out.constant = std::move(value);
    out.untyped = node.untyped;
    out.path = node.path;
    return out;
  }

  static BinaryOp ToBinaryOp(ExpressionOp op) {
    switch (op) {
      case E::ADD: return BinaryOp::kAdd;
      case E::SUB: return BinaryOp::kSub;
      case E::MUL: return BinaryOp::kMul;
      case E::DIV: return BinaryOp::kDiv;
      case E::MOD: return BinaryOp::kMod;
      case E::MIN: return BinaryOp::kMin;
      case E::MAX: return BinaryOp::kMax;
      case E::EQUAL: return BinaryOp::kEqual;
      case E::NOT_EQUAL: return BinaryOp::kNotEqual;
      case E::LESS: return BinaryOp::kLess;
      case E::LESS_EQUAL: return BinaryOp::kLessEqual;
      case E::GREATER: return BinaryOp::kGreater;
      case E::GREATER_EQUAL: return BinaryOp::kGreaterEqual;
      case E::AND: return BinaryOp::kAnd;
      default: return BinaryOp::kOr;
    }
  }

  static UnaryOp ToUnaryOp(ExpressionOp op) {
    switch (op) {
      case E::NEG: return UnaryOp::kNeg;
      case E::ABS: return UnaryOp::kAbs;
      case E::EXP: return UnaryOp::kExp;
      case E::LOG: return UnaryOp::kLog;
      case E::SQRT: return UnaryOp::kSqrt;
      case E::FLOOR: return UnaryOp::kFloor;
      case E::ROUND: return UnaryOp::kRound;
      case E::NOT: return UnaryOp::kLogicalNot;
      default: return UnaryOp::kStringLength;
    }
  }

  const ElementSpec& input_;
};

// Walks `e` for IsRowWise: the ranks of the components it references and
// the largest rank of its constants; false when a node is not element-wise.
bool CollectRanks(const BoundExpression& e, const ElementSpec& input, std::vector<int>& component_ranks,
                  int& constant_rank) {
  switch (e.kind) {
    case Kind::kComponent:
      component_ranks.push_back(input[e.component].shape.rank());
      return true;
    case Kind::kConstant:
      constant_rank = std::max(constant_rank, e.constant.rank());
      return true;
    case Kind::kUnary:
    case Kind::kBinary:
    case Kind::kCast:
    case Kind::kWhere:
      return std::all_of(e.args.begin(), e.args.end(), [&](const BoundExpression& arg) {
        return CollectRanks(arg, input, component_ranks, constant_rank);
      });
    default: return false;
  }
}

}  // namespace

Result<BoundExpression> BindExpression(const spec::Expression& expression, const ElementSpec& input,
                                       const std::string& path) {
  Binder binder(input);
  SLUICE_ASSIGN_OR_RETURN(BoundExpression bound, binder.Bind(expression, path, 0));
  Status typed = TypeLiteralByDefault(bound);
  if (!typed.ok()) return typed.WithContext(path);
  return bound;
}

bool IsRowWise(const BoundExpression& expression, const ElementSpec& input) {
  std::vector<int> ranks;
  int constant_rank = 0;
  if (!CollectRanks(expression, input, ranks, constant_rank) || ranks.empty()) return false;
  const int rank = ranks.front();
  return rank >= 0 && constant_rank <= rank && std::all_of(ranks.begin(), ranks.end(), [&](int r) { return r == rank; });
}

}  // namespace sluice

#include "sluice/dataset/expression_evaluate.h"

#include <span>

#include "sluice/ops/cast.h"
#include "sluice/ops/concat.h"
#include "sluice/ops/slice_axis.h"
#include "sluice/ops/where.h"

namespace sluice {
namespace {

using Kind = BoundExpression::Kind;

// The node's own kernel, on its evaluated arguments.
Result<Tensor> ApplyNode(const BoundExpression& e, std::span<const Tensor> args) {
  switch (e.kind) {
    case Kind::kUnary: return ElementwiseUnary(e.unary_op, args[0]);
    case Kind::kBinary: return ElementwiseBinary(e.binary_op, args[0], args[1]);
    case Kind::kCast: return args[0].dtype() == e.dtype ? args[0] : Cast(args[0], e.dtype);
    case Kind::kWhere: return Where(args[0], args[1], args[2]);
    case Kind::kShape: {
      const auto dims = args[0].shape().dims();
      return Tensor::FromVector(std::vector<int64_t>(dims.begin(), dims.end()));
    }
    case Kind::kSize: return Tensor::Scalar<int64_t>(args[0].NumElements());
    case Kind::kLength:
      if (args[0].rank() == 0) return InvalidArgumentError("length: the operand is a scalar");
      return Tensor::Scalar<int64_t>(args[0].dim(0));
    case Kind::kSlice: return SliceAxis(args[0], e.axis, e.begin, e.end);
    case Kind::kConcat: return Concat(args, e.axis);
    case Kind::kComponent:
    case Kind::kConstant: break;
  }
  return InternalError("unhandled expression node");
}

}  // namespace

Result<Tensor> EvaluateExpression(const BoundExpression& e, const Element& element) {
  if (e.kind == Kind::kComponent) {
    if (e.component >= element.size()) {
      return InvalidArgumentError(e.path, ": the element has ", element.size(), " components; component ",
                                  e.component, " is missing");
    }
    return element[e.component];
  }
  if (e.kind == Kind::kConstant) return e.constant;
  std::vector<Tensor> args;
  args.reserve(e.args.size());
  for (const BoundExpression& arg : e.args) {
    SLUICE_ASSIGN_OR_RETURN(Tensor value, EvaluateExpression(arg, element));
    args.push_back(std::move(value));
  }
  Result<Tensor> value = ApplyNode(e, args);
  if (!value.ok()) return value.status().WithContext(e.path);
  return value;
}

}  // namespace sluice

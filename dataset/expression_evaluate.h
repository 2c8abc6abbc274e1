// Evaluating a bound pipeline expression (expression_bind.h) on one
// element, or on a run of elements stacked along a leading dimension when
// the expression is row-wise: each node runs once over whole tensors,
// through the ops/ kernels (elementwise_unary.h, elementwise_binary.h,
// where.h, cast.h, slice_axis.h, concat.h).
// Errors (an integer division by zero, shapes that do not broadcast) are
// InvalidArgument naming the node's path.
// Thread safety: may be called concurrently.
#pragma once

#include "sluice/dataset/expression_bind.h"

namespace sluice {

Result<Tensor> EvaluateExpression(const BoundExpression& expression, const Element& element);

}  // namespace sluice

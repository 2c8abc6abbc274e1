#include "sluice/ops/reduce_ops.h"

#include <algorithm>

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/broadcast.h"
#include "sluice/ops/device_backend.h"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/reshape.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

// The input shape with every reduced axis set to 1.
struct Reduction {
  Shape kept;    // rank of the input, reduced dims 1
  Shape output;  // `kept`, or without the reduced dims
  int64_t count = 1;  // elements summed into each output
};

Result<Reduction> PlanReduction(std::string_view op, const Shape& input, const OpAttrs& attrs) {
  std::vector<bool> reduced(input.rank(), attrs.GetInts("axes").empty());
  for (int64_t axis : attrs.GetInts("axes")) {
    if (axis < -input.rank() || axis >= input.rank()) {
      return InvalidArgumentError(op, ": axis ", axis, " is out of range for an input of shape ", input);
    }
    reduced[axis < 0 ? axis + input.rank() : axis] = true;
  }
  Reduction plan;
  plan.kept = input;
  std::vector<int64_t> output_dims;
  for (int i = 0; i < input.rank(); ++i) {
    if (reduced[i]) {
      plan.count *= input.dim(i);
      plan.kept.set_dim(i, 1);
      if (attrs.GetBool("keep_dims")) output_dims.push_back(1);
    } else {
      output_dims.push_back(input.dim(i));
    }
  }
  plan.output = Shape(output_dims);
  return plan;
}

template <bool kMean>
Result<std::vector<TensorMeta>> InferReduce(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  const std::string_view op = kMean ? "mean" : "sum";
  SLUICE_RETURN_IF_ERROR(CheckFloating(op, inputs, 0));
  SLUICE_ASSIGN_OR_RETURN(Reduction plan, PlanReduction(op, inputs[0].shape(), attrs));
  return std::vector<TensorMeta>{{inputs[0].dtype(), plan.output}};
}

template <bool kMean>
Status ReduceKernel(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  SLUICE_ASSIGN_OR_RETURN(Reduction plan, PlanReduction(kMean ? "mean" : "sum", x.shape(), attrs));
  VisitFloating(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    T* out = outputs[0].mutable_data<T>();
    std::fill(out, out + outputs[0].NumElements(), T(0));
    std::array<int64_t, kMaxRank> contiguous{};
    int64_t stride = 1;
    for (int i = x.rank() - 1; i >= 0; --i) {
      contiguous[i] = stride;
      stride *= x.dim(i);
    }
    ForEachBroadcastRow(x.shape(), BroadcastStrides(plan.kept, x.shape()), contiguous,
                        [&](int64_t, int64_t o, int64_t i, int64_t n, int64_t so, int64_t) {
                          if (so == 0) {
                            T sum = 0;
                            for (int64_t k = 0; k < n; ++k) sum += in[i + k];
                            out[o] += sum;
                          } else {
                            for (int64_t k = 0; k < n; ++k) out[o + k] += in[i + k];
                          }
                        });
    if (kMean && plan.count > 0) {
      const T scale = T(1) / static_cast<T>(plan.count);
      for (int64_t i = 0; i < outputs[0].NumElements(); ++i) out[i] *= scale;
    }
  });
  return OkStatus();
}

// d(sum)/dx: the output gradient spread back over the reduced axes.
template <bool kMean>
Result<std::vector<Tensor>> ReduceGradient(const GradientContext& c) {
  const Tensor& x = c.inputs[0];
  SLUICE_ASSIGN_OR_RETURN(Reduction plan, PlanReduction(kMean ? "mean" : "sum", x.shape(), c.attrs));
  SLUICE_ASSIGN_OR_RETURN(Tensor g, Reshape(c.output_grads[0], plan.kept));
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, BroadcastTo(g, x.shape()));
  if (kMean) {
    Tensor scale = VisitFloating(x.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return Tensor::Scalar<T>(T(1) / static_cast<T>(std::max<int64_t>(plan.count, 1)));
    });
    SLUICE_ASSIGN_OR_RETURN(scale, ConstantLike(scale, dx));
    SLUICE_ASSIGN_OR_RETURN(dx, Mul(dx, scale));
  }
  return std::vector<Tensor>{dx};
}

Result<std::vector<TensorMeta>> InferBroadcastTo(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("broadcast_to", inputs, 0));
  SLUICE_ASSIGN_OR_RETURN(Shape target, Shape::FromDims(attrs.GetInts("shape")));
  SLUICE_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes("broadcast_to", inputs[0].shape(), target));
  if (shape != target) {
    return InvalidArgumentError("broadcast_to: cannot broadcast shape ", inputs[0].shape(), " to ", target);
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), target}};
}

Status BroadcastToKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* in = inputs[0].data<T>();
    T* out = outputs[0].mutable_data<T>();
    ForEachBroadcastRow(outputs[0].shape(), BroadcastStrides(inputs[0].shape(), outputs[0].shape()), {},
                        [&](int64_t o, int64_t i, int64_t, int64_t n, int64_t si, int64_t) {
                          for (int64_t k = 0; k < n; ++k) out[o + k] = in[i + k * si];
                        });
  });
  return OkStatus();
}

Result<std::vector<Tensor>> BroadcastToGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, SumToShape(c.output_grads[0], c.inputs[0].shape()));
  return std::vector<Tensor>{dx};
}

Result<Tensor> RunReduce(const OpDef& def, const Tensor& x, std::vector<int64_t> axes, bool keep_dims) {
  const Tensor inputs[] = {x};
  return RunSingleOutputOp(def, inputs, OpAttrs{{"axes", std::move(axes)}, {"keep_dims", keep_dims}});
}

}  // namespace

Result<Tensor> Sum(const Tensor& x, std::vector<int64_t> axes, bool keep_dims) {
  static const OpDef& def = OpRegistry::Global().Get("sum");
  return RunReduce(def, x, std::move(axes), keep_dims);
}

Result<Tensor> Mean(const Tensor& x, std::vector<int64_t> axes, bool keep_dims) {
  static const OpDef& def = OpRegistry::Global().Get("mean");
  return RunReduce(def, x, std::move(axes), keep_dims);
}

Result<Tensor> BroadcastTo(const Tensor& x, const Shape& shape) {
  static const OpDef& def = OpRegistry::Global().Get("broadcast_to");
  const Tensor inputs[] = {x};
  const auto dims = shape.dims();
  return RunSingleOutputOp(def, inputs, OpAttrs{{"shape", std::vector<int64_t>(dims.begin(), dims.end())}});
}

Result<Tensor> SumToShape(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  std::vector<int64_t> axes;
  const int extra = x.rank() - shape.rank();
  for (int i = 0; i < x.rank(); ++i) {
    if (i < extra || (shape.dim(i - extra) == 1 && x.dim(i) != 1)) axes.push_back(i);
  }
  SLUICE_ASSIGN_OR_RETURN(Tensor summed, Sum(x, axes, /*keep_dims=*/true));
  return Reshape(summed, shape);
}

void RegisterReduceOps(OpRegistry& registry) {
  registry.Register({.name = "sum", .infer = InferReduce<false>, .gradient = ReduceGradient<false>,
                     .cpu_kernel = ReduceKernel<false>});
  registry.Register({.name = "mean", .infer = InferReduce<true>, .gradient = ReduceGradient<true>,
                     .cpu_kernel = ReduceKernel<true>});
  registry.Register({.name = "broadcast_to", .infer = InferBroadcastTo, .gradient = BroadcastToGradient,
                     .cpu_kernel = BroadcastToKernel});
}

}  // namespace sluice

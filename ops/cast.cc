#include "sluice/ops/cast.h"

#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferCast(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  const DType from = inputs[0].dtype(), to = attrs.GetDType("dtype");
  if ((from == DType::kString) != (to == DType::kString)) {
    return InvalidArgumentError("Cast: cannot cast ", from, " to ", to,
                                " (string tensors cast only to string)");
  }
  return std::vector<TensorMeta>{{to, inputs[0].shape()}};
}

Status CastKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  Tensor& out = outputs[0];
  const int64_t n = x.NumElements();
  if (x.dtype() == DType::kString) {
    const TString* src = x.data<TString>();
    TString* dst = out.mutable_data<TString>();
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    return OkStatus();
  }
  VisitNumericDType(x.dtype(), [&](auto from_zero) {
    using From = decltype(from_zero);
    VisitNumericDType(out.dtype(), [&](auto to_zero) {
      using To = decltype(to_zero);
      const From* src = x.data<From>();
      To* dst = out.mutable_data<To>();
      ParallelFor(n, kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) dst[i] = ConvertValue<To>(src[i]);
      });
    });
  });
  return OkStatus();
}

// Floating to floating: the gradient in the input's dtype. Otherwise no
// gradient for the input.
Result<std::vector<Tensor>> CastGradient(const GradientContext& c) {
  const DType from = c.inputs[0].dtype();
  if (!IsFloating(from) || !IsFloating(c.outputs[0].dtype())) return std::vector<Tensor>{Tensor()};
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Cast(c.output_grads[0], from));
  return std::vector<Tensor>{dx};
}

}  // namespace

Result<Tensor> Cast(const Tensor& x, DType to) {
  static const OpDef& def = OpRegistry::Global().Get("cast");
  const Tensor inputs[] = {x};
  return RunSingleOutputOp(def, inputs, OpAttrs{{"dtype", to}});
}

void RegisterCastOp(OpRegistry& registry) {
  registry.Register({.name = "cast", .infer = InferCast, .gradient = CastGradient, .cpu_kernel = CastKernel});
}

}  // namespace sluice

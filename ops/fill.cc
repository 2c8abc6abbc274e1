#include "sluice/ops/fill.h"

#include <algorithm>

#include "sluice/ops/op_registry.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferFill(std::span<const Tensor> inputs, const OpAttrs&) {
  if (inputs[0].dtype() == DType::kString) {
    return InvalidArgumentError("fill: expected a numeric tensor, got string");
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), inputs[0].shape()}};
}

template <int kValue>
Status FillKernel(std::span<const Tensor>, const OpAttrs&, std::span<Tensor> outputs) {
  VisitNumericDType(outputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* out = outputs[0].mutable_data<T>();
    std::fill(out, out + outputs[0].NumElements(), ConvertValue<T>(kValue));
  });
  return OkStatus();
}

Result<Tensor> RunFill(const OpDef& def, const Tensor& x) {
  const Tensor inputs[] = {x};
  return RunSingleOutputOp(def, inputs);
}

}  // namespace

Result<Tensor> OnesLike(const Tensor& x) {
  static const OpDef& def = OpRegistry::Global().Get("ones_like");
  return RunFill(def, x);
}

Result<Tensor> ZerosLike(const Tensor& x) {
  static const OpDef& def = OpRegistry::Global().Get("zeros_like");
  return RunFill(def, x);
}

void RegisterFillOps(OpRegistry& registry) {
  registry.Register({.name = "ones_like", .infer = InferFill, .cpu_kernel = FillKernel<1>});
  registry.Register({.name = "zeros_like", .infer = InferFill, .cpu_kernel = FillKernel<0>});
}

}  // namespace sluice

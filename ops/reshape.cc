#include "sluice/ops/reshape.h"

#include <cstring>

#include "sluice/ops/op_registry.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferReshape(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  const Tensor& x = inputs[0];
  if (x.dtype() == DType::kString) return InvalidArgumentError("reshape: expected a numeric tensor, got string");
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(attrs.GetInts("shape")));
  if (shape.NumElements() != x.NumElements()) {
    return InvalidArgumentError("reshape: cannot reshape a tensor of shape ", x.shape(), " (",
                                x.NumElements(), " elements) to shape ", shape, " (",
                                shape.NumElements(), " elements)");
  }
  return std::vector<TensorMeta>{{x.dtype(), shape}};
}

Status ReshapeKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  if (inputs[0].NumBytes() > 0) std::memcpy(outputs[0].raw_data(), inputs[0].raw_data(), inputs[0].NumBytes());
  return OkStatus();
}

Result<std::vector<Tensor>> ReshapeGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Reshape(c.output_grads[0], c.inputs[0].shape()));
  return std::vector<Tensor>{dx};
}

}  // namespace

Result<Tensor> Reshape(const Tensor& x, const Shape& shape) {
  static const OpDef& def = OpRegistry::Global().Get("reshape");
  const Tensor inputs[] = {x};
  const auto dims = shape.dims();
  return RunSingleOutputOp(def, inputs, OpAttrs{{"shape", std::vector<int64_t>(dims.begin(), dims.end())}});
}

void RegisterReshapeOp(OpRegistry& registry) {
  registry.Register({.name = "reshape", .infer = InferReshape, .gradient = ReshapeGradient,
                     .cpu_kernel = ReshapeKernel});
}

}  // namespace sluice

#include "sluice/ops/bias_add.h"

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferBiasAdd(std::span<const Tensor> inputs, const OpAttrs&) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("bias_add", inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckSameDType("bias_add", inputs, 1));
  SLUICE_RETURN_IF_ERROR(CheckRank("bias_add", inputs, 1, 1));
  const Tensor& value = inputs[0];
  if (value.rank() < 1) {
    return InvalidArgumentError("bias_add: input 0 must have rank >= 1, got shape ", value.shape());
  }
  if (value.dim(value.rank() - 1) != inputs[1].dim(0)) {
    return InvalidArgumentError("bias_add: input 1 (bias) has shape ", inputs[1].shape(),
                                " but the last dimension of input 0 is ", value.dim(value.rank() - 1),
                                " (shape ", value.shape(), ")");
  }
  return std::vector<TensorMeta>{{value.dtype(), value.shape()}};
}

Status BiasAddKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t channels = inputs[1].NumElements();
  if (channels == 0) return OkStatus();
  const int64_t rows = inputs[0].NumElements() / channels;
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* value = inputs[0].data<T>();
    const T* bias = inputs[1].data<T>();
    T* out = outputs[0].mutable_data<T>();
    ParallelFor(rows, RowGrain(channels), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t offset = r * channels;
        for (int64_t c = 0; c < channels; ++c) out[offset + c] = value[offset + c] + bias[c];
      }
    });
  });
  return OkStatus();
}

// d/dvalue = g; d/dbias = g summed over every dimension but the last.
Result<std::vector<Tensor>> BiasAddGradient(const GradientContext& c) {
  const Tensor& g = c.output_grads[0];
  if (g.rank() == 1) return std::vector<Tensor>{g, g};
  std::vector<int64_t> leading(g.rank() - 1);
  for (int i = 0; i + 1 < g.rank(); ++i) leading[i] = i;
  SLUICE_ASSIGN_OR_RETURN(Tensor dbias, Sum(g, std::move(leading)));
  return std::vector<Tensor>{g, dbias};
}

}  // namespace

Result<Tensor> BiasAdd(const Tensor& value, const Tensor& bias) {
  static const OpDef& def = OpRegistry::Global().Get("bias_add");
  const Tensor inputs[] = {value, bias};
  return RunSingleOutputOp(def, inputs);
}

void RegisterBiasAddOp(OpRegistry& registry) {
  registry.Register({.name = "bias_add", .num_inputs = 2, .infer = InferBiasAdd, .gradient = BiasAddGradient,
                     .cpu_kernel = BiasAddKernel});
}

}  // namespace sluice

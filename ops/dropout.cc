#include "sluice/ops/dropout.h"

#include <bit>
#include <cmath>

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/counter_rng.h"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferDropout(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("dropout", inputs, 0));
  const double rate = attrs.GetFloat("rate");
  if (!(rate >= 0 && rate < 1)) {
    return InvalidArgumentError("dropout: rate must be in [0, 1), got ", rate);
  }
  const TensorMeta meta{inputs[0].dtype(), inputs[0].shape()};
  return std::vector<TensorMeta>{meta, meta};
}

// outputs[1] (the mask) is 0 or 1 / (1 - rate) per element; outputs[0] is
// x * mask.
Status DropoutKernel(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const double rate = attrs.GetFloat("rate");
  const uint64_t seed_state = Mix64(std::bit_cast<uint64_t>(attrs.GetInt("seed")));
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* x = inputs[0].data<T>();
    T* y = outputs[0].mutable_data<T>();
    T* mask = outputs[1].mutable_data<T>();
    const T keep_scale = static_cast<T>(1 / (1 - rate));
    ParallelFor(inputs[0].NumElements(), kParallelGrain / 4, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        mask[i] = rate == 0 || UniformAt(seed_state, i) >= rate ? keep_scale : T(0);
        y[i] = x[i] * mask[i];
      }
    });
  });
  return OkStatus();
}

// dx = g * mask; the mask output takes no part in the gradient.
Result<std::vector<Tensor>> DropoutGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Mul(c.output_grads[0], c.outputs[1]));
  return std::vector<Tensor>{dx};
}

}  // namespace

Result<Tensor> Dropout(const Tensor& x, double rate, uint64_t seed) {
  static const OpDef& def = OpRegistry::Global().Get("dropout");
  const Tensor inputs[] = {x};
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs,
                          RunOp(def, inputs,
                                OpAttrs{{"rate", rate}, {"seed", std::bit_cast<int64_t>(seed)}}));
  return std::move(outputs[0]);
}

void RegisterDropoutOp(OpRegistry& registry) {
  registry.Register({.name = "dropout", .num_outputs = 2, .infer = InferDropout, .gradient = DropoutGradient,
                     .cpu_kernel = DropoutKernel});
}

}  // namespace sluice

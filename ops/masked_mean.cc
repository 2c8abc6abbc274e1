#include "sluice/ops/masked_mean.h"

#include <algorithm>

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferMaskedMean(std::span<const Tensor> inputs, const OpAttrs&) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("masked_mean", inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckRank("masked_mean", inputs, 0, 3));
  SLUICE_RETURN_IF_ERROR(CheckSameDType("masked_mean", inputs, 1));
  SLUICE_RETURN_IF_ERROR(CheckRank("masked_mean", inputs, 1, 2));
  const Tensor& values = inputs[0];
  const Tensor& mask = inputs[1];
  if (mask.dim(0) != values.dim(0) || mask.dim(1) != values.dim(1)) {
    return InvalidArgumentError("masked_mean: input 1 (mask) has shape ", mask.shape(),
                                " but input 0 (values) has shape ", values.shape(), "; expected mask shape [",
                                values.dim(0), ", ", values.dim(1), "]");
  }
  return std::vector<TensorMeta>{{values.dtype(), Shape{values.dim(0), values.dim(2)}}};
}

// 1 / sum(mask row), or 0 for a row with no real step, so that row's
// output and gradient are zeros.
template <typename T>
T InverseCount(const T* mask_row, int64_t steps) {
  T count = 0;
  for (int64_t t = 0; t < steps; ++t) count += mask_row[t];
  return count == T(0) ? T(0) : T(1) / count;
}

// out[n, :] = sum_t mask[n, t] * values[n, t, :] / sum_t mask[n, t].
Status MaskedMeanKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& values = inputs[0];
  const int64_t steps = values.dim(1), depth = values.dim(2);
  VisitFloating(values.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* v = values.data<T>();
    const T* mask = inputs[1].data<T>();
    T* out = outputs[0].mutable_data<T>();
    ParallelFor(values.dim(0), RowGrain(steps * depth), [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        T* row = out + n * depth;
        std::fill(row, row + depth, T(0));
        const T scale = InverseCount(mask + n * steps, steps);
        for (int64_t t = 0; t < steps; ++t) {
          const T weight = mask[n * steps + t] * scale;
          if (weight == T(0)) continue;
          const T* step = v + (n * steps + t) * depth;
          for (int64_t d = 0; d < depth; ++d) row[d] += weight * step[d];
        }
      }
    });
  });
  return OkStatus();
}

// The backward op: (mask [N, T], g [N, D]) -> dvalues [N, T, D] =
// g[n, :] * mask[n, t] / sum_t mask[n, t].
Result<std::vector<TensorMeta>> InferMaskedMeanGrad(std::span<const Tensor> inputs, const OpAttrs&) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("masked_mean_grad", inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckRank("masked_mean_grad", inputs, 0, 2));
  SLUICE_RETURN_IF_ERROR(CheckSameDType("masked_mean_grad", inputs, 1));
  SLUICE_RETURN_IF_ERROR(CheckRank("masked_mean_grad", inputs, 1, 2));
  const Tensor& mask = inputs[0];
  const Tensor& g = inputs[1];
  if (g.dim(0) != mask.dim(0)) {
    return InvalidArgumentError("masked_mean_grad: input 1 has shape ", g.shape(), " but input 0 has ",
                                mask.shape(), "; expected ", mask.dim(0), " rows in both");
  }
  return std::vector<TensorMeta>{{g.dtype(), Shape{mask.dim(0), mask.dim(1), g.dim(1)}}};
}

Status MaskedMeanGradKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t steps = inputs[0].dim(1), depth = inputs[1].dim(1);
  VisitFloating(inputs[1].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* mask = inputs[0].data<T>();
    const T* g = inputs[1].data<T>();
    T* dv = outputs[0].mutable_data<T>();
    ParallelFor(inputs[0].dim(0), RowGrain(steps * depth), [&](int64_t begin, int64_t end) {
      for (int64_t n = begin; n < end; ++n) {
        const T scale = InverseCount(mask + n * steps, steps);
        for (int64_t t = 0; t < steps; ++t) {
          const T weight = mask[n * steps + t] * scale;
          T* step = dv + (n * steps + t) * depth;
          for (int64_t d = 0; d < depth; ++d) step[d] = weight * g[n * depth + d];
        }
      }
    });
  });
  return OkStatus();
}

// The mask is a constant (it comes from the data), so only values get a
// gradient.
Result<std::vector<Tensor>> MaskedMeanGradient(const GradientContext& c) {
  static const OpDef& def = OpRegistry::Global().Get("masked_mean_grad");
  const Tensor inputs[] = {c.inputs[1], c.output_grads[0]};
  SLUICE_ASSIGN_OR_RETURN(Tensor dvalues, RunSingleOutputOp(def, inputs));
  return std::vector<Tensor>{dvalues, Tensor()};
}

}  // namespace

Result<Tensor> MaskedMean(const Tensor& values, const Tensor& mask) {
  static const OpDef& def = OpRegistry::Global().Get("masked_mean");
  const Tensor inputs[] = {values, mask};
  return RunSingleOutputOp(def, inputs);
}

void RegisterMaskedMeanOp(OpRegistry& registry) {
  registry.Register({.name = "masked_mean", .num_inputs = 2, .infer = InferMaskedMean,
                     .gradient = MaskedMeanGradient, .cpu_kernel = MaskedMeanKernel});
  // Backward-only; not differentiable itself.
  registry.Register({.name = "masked_mean_grad", .num_inputs = 2, .infer = InferMaskedMeanGrad,
                     .cpu_kernel = MaskedMeanGradKernel});
}

}  // namespace sluice

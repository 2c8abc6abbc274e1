#include "sluice/ops/cross_entropy.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"
#include "sluice/ops/softmax_row.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {
namespace {

// Each loss is a forward op (labels, logits) -> loss and a backward-only op
// (labels, logits, g) -> g * d(loss)/d(logits), one fused kernel each, so a
// training step allocates only the gradient it returns.

struct SparseSoftmaxLoss {
  static constexpr std::string_view kName = "sparse_softmax_cross_entropy_with_logits";
  static constexpr std::string_view kGradName = "sparse_softmax_cross_entropy_with_logits_grad";

  static Result<std::vector<TensorMeta>> Infer(std::span<const Tensor> inputs, const OpAttrs&) {
    SLUICE_RETURN_IF_ERROR(CheckIndexDType(kName, inputs, 0));
    SLUICE_RETURN_IF_ERROR(CheckRank(kName, inputs, 0, 1));
    SLUICE_RETURN_IF_ERROR(CheckFloating(kName, inputs, 1));
    SLUICE_RETURN_IF_ERROR(CheckRank(kName, inputs, 1, 2));
    const Tensor& labels = inputs[0];
    const Tensor& logits = inputs[1];
    if (labels.dim(0) != logits.dim(0)) {
      return InvalidArgumentError(kName, ": input 0 (labels) has shape ", labels.shape(),
                                  " but input 1 (logits) has shape ", logits.shape(),
                                  "; expected one label per row, shape [", logits.dim(0), "]");
    }
    return std::vector<TensorMeta>{{logits.dtype(), Shape{logits.dim(0)}}};
  }

  // Values a shape function cannot see.
  static Status CheckLabels(const Tensor& labels, int64_t classes) {
    for (int64_t row = 0; row < labels.NumElements(); ++row) {
      const int64_t label = IndexAt(labels, row);
      if (label < 0 || label >= classes) {
        return InvalidArgumentError(kName, ": label ", label, " in row ", row,
                                    " is outside the valid range [0, ", classes, ")");
      }
    }
    return OkStatus();
  }

  // Checks the labels, then calls fn(r, logits row r, classes, label r) for
  // every row, rows split across threads.
  template <typename Fn>
  static Status ForEachRow(std::span<const Tensor> inputs, Fn&& fn) {
    const Tensor& labels = inputs[0];
    const Tensor& logits = inputs[1];
    const int64_t classes = logits.dim(1);
    SLUICE_RETURN_IF_ERROR(CheckLabels(labels, classes));
    VisitFloating(logits.dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* x = logits.data<T>();
      ParallelFor(labels.NumElements(), RowGrain(classes), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) fn(r, x + r * classes, classes, IndexAt(labels, r));
      });
    });
    return OkStatus();
  }

  // loss = log(sum(exp(x))) - x[label], from x - max(x).
  static Status Kernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    return ForEachRow(inputs, [&](int64_t r, const auto* row, int64_t classes, int64_t label) {
      using T = std::remove_cvref_t<decltype(*row)>;
      const RowLogSumExp<T> lse = ComputeRowLogSumExp(row, classes);
      outputs[0].mutable_data<T>()[r] = lse.log_sum - (row[label] - lse.max);
    });
  }

  // g * (softmax(x) - one_hot(label)), row by row.
  static Status GradKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    return ForEachRow(inputs, [&](int64_t r, const auto* row, int64_t classes, int64_t label) {
      using T = std::remove_cvref_t<decltype(*row)>;
      const T g = inputs[2].data<T>()[r];
      T* dx = outputs[0].mutable_data<T>() + r * classes;
      SoftmaxRow(row, classes, dx);
      dx[label] -= T(1);
      for (int64_t c = 0; c < classes; ++c) dx[c] *= g;
    });
  }
};

// Elementwise losses of (labels, logits) of one shape and float dtype.
Status CheckSameFloatShape(std::string_view op, std::span<const Tensor> inputs) {
  SLUICE_RETURN_IF_ERROR(CheckFloating(op, inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckSameDType(op, inputs, 1));
  return CheckSameShape(op, inputs, 1);
}

struct SigmoidLoss {
  static constexpr std::string_view kName = "sigmoid_cross_entropy_with_logits";
  static constexpr std::string_view kGradName = "sigmoid_cross_entropy_with_logits_grad";

  static Result<std::vector<TensorMeta>> Infer(std::span<const Tensor> inputs, const OpAttrs&) {
    SLUICE_RETURN_IF_ERROR(CheckSameFloatShape(kName, inputs));
    return std::vector<TensorMeta>{{inputs[1].dtype(), inputs[1].shape()}};
  }

  // max(x, 0) - x z + log(1 + exp(-|x|)): exp never overflows.
  static Status Kernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    VisitFloating(inputs[1].dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* z = inputs[0].data<T>();
      const T* x = inputs[1].data<T>();
      T* loss = outputs[0].mutable_data<T>();
      ParallelFor(outputs[0].NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          loss[i] = std::max(x[i], T(0)) - x[i] * z[i] + std::log1p(std::exp(-std::abs(x[i])));
        }
      });
    });
    return OkStatus();
  }

  // g * (sigmoid(x) - z), with sigmoid from exp(-|x|).
  static Status GradKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    VisitFloating(inputs[1].dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* z = inputs[0].data<T>();
      const T* x = inputs[1].data<T>();
      const T* g = inputs[2].data<T>();
      T* dx = outputs[0].mutable_data<T>();
      ParallelFor(outputs[0].NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const T e = std::exp(-std::abs(x[i]));
          const T sigmoid = x[i] >= T(0) ? T(1) / (T(1) + e) : e / (T(1) + e);
          dx[i] = g[i] * (sigmoid - z[i]);
        }
      });
    });
    return OkStatus();
  }
};

struct MeanSquaredLoss {
  static constexpr std::string_view kName = "mean_squared_error";
  static constexpr std::string_view kGradName = "mean_squared_error_grad";

  static Result<std::vector<TensorMeta>> Infer(std::span<const Tensor> inputs, const OpAttrs&) {
    SLUICE_RETURN_IF_ERROR(CheckSameFloatShape(kName, inputs));
    const Shape& shape = inputs[1].shape();
    if (shape.rank() < 1) {
      return InvalidArgumentError(kName, ": input 1 must have rank >= 1 (the mean is over the last "
                                  "dimension), got shape ", shape);
    }
    const auto dims = shape.dims();
    return std::vector<TensorMeta>{{inputs[1].dtype(), Shape(std::vector<int64_t>(dims.begin(), dims.end() - 1))}};
  }

  // mean((p - l)^2) over the last dimension; an empty last dimension gives
  // 0/0 = NaN, as tf.keras does.
  static Status Kernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    const int64_t depth = inputs[1].dim(inputs[1].rank() - 1);
    VisitFloating(inputs[1].dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* l = inputs[0].data<T>();
      const T* p = inputs[1].data<T>();
      T* loss = outputs[0].mutable_data<T>();
      ParallelFor(outputs[0].NumElements(), RowGrain(depth), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          T sum = 0;
          for (int64_t k = r * depth; k < (r + 1) * depth; ++k) sum += (p[k] - l[k]) * (p[k] - l[k]);
          loss[r] = sum / static_cast<T>(depth);
        }
      });
    });
    return OkStatus();
  }

  // d/dp = g * 2 (p - l) / D.
  static Status GradKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
    const int64_t depth = inputs[1].dim(inputs[1].rank() - 1);
    VisitFloating(inputs[1].dtype(), [&](auto zero) {
      using T = decltype(zero);
      const T* l = inputs[0].data<T>();
      const T* p = inputs[1].data<T>();
      const T* g = inputs[2].data<T>();
      T* dp = outputs[0].mutable_data<T>();
      const T scale = T(2) / static_cast<T>(depth);
      ParallelFor(inputs[2].NumElements(), RowGrain(depth), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          for (int64_t k = r * depth; k < (r + 1) * depth; ++k) dp[k] = g[r] * scale * (p[k] - l[k]);
        }
      });
    });
    return OkStatus();
  }
};

// The backward op's inputs: the forward op's, then g of the loss's dtype and
// shape. Its output has the logits' dtype and shape.
template <typename Loss>
Result<std::vector<TensorMeta>> InferLossGradient(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<TensorMeta> loss, Loss::Infer(inputs.first(2), attrs));
  const Tensor& g = inputs[2];
  if (g.dtype() != loss[0].dtype || g.shape() != loss[0].shape) {
    return InvalidArgumentError(Loss::kGradName, ": input 2 (the loss gradient) must be ", loss[0].dtype,
                                loss[0].shape, ", got ", g.dtype(), g.shape());
  }
  return std::vector<TensorMeta>{{inputs[1].dtype(), inputs[1].shape()}};
}

template <typename Loss>
Result<Tensor> RunLossGradient(const GradientContext& c) {
  static const OpDef& def = OpRegistry::Global().Get(Loss::kGradName);
  const Tensor inputs[] = {c.inputs[0], c.inputs[1], c.output_grads[0]};
  return RunSingleOutputOp(def, inputs);
}

// Labels are constants for both cross entropies (as in TensorFlow's fused
// kernels); the squared error is symmetric, so d/dlabels = -d/dpredictions.
template <typename Loss>
Result<std::vector<Tensor>> LogitsOnlyGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dlogits, RunLossGradient<Loss>(c));
  return std::vector<Tensor>{Tensor(), dlogits};
}

Result<std::vector<Tensor>> MeanSquaredErrorGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dpredictions, RunLossGradient<MeanSquaredLoss>(c));
  SLUICE_ASSIGN_OR_RETURN(Tensor dlabels, Neg(dpredictions));
  return std::vector<Tensor>{dlabels, dpredictions};
}

template <typename Loss>
void RegisterLoss(OpRegistry& registry, GradientFn gradient) {
  registry.Register({.name = Loss::kName, .num_inputs = 2, .infer = Loss::Infer, .gradient = gradient,
                     .cpu_kernel = Loss::Kernel});
  // Backward-only; not differentiable itself.
  registry.Register({.name = Loss::kGradName, .num_inputs = 3, .infer = InferLossGradient<Loss>,
                     .cpu_kernel = Loss::GradKernel});
}

template <typename Loss>
Result<Tensor> RunLoss(const Tensor& labels, const Tensor& logits) {
  static const OpDef& def = OpRegistry::Global().Get(Loss::kName);
  const Tensor inputs[] = {labels, logits};
  return RunSingleOutputOp(def, inputs);
}

}  // namespace

Result<Tensor> SparseSoftmaxCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits) {
  return RunLoss<SparseSoftmaxLoss>(labels, logits);
}

Result<Tensor> SigmoidCrossEntropyWithLogits(const Tensor& labels, const Tensor& logits) {
  return RunLoss<SigmoidLoss>(labels, logits);
}

Result<Tensor> MeanSquaredError(const Tensor& labels, const Tensor& predictions) {
  return RunLoss<MeanSquaredLoss>(labels, predictions);
}

void RegisterCrossEntropyOps(OpRegistry& registry) {
  RegisterLoss<SparseSoftmaxLoss>(registry, LogitsOnlyGradient<SparseSoftmaxLoss>);
  RegisterLoss<SigmoidLoss>(registry, LogitsOnlyGradient<SigmoidLoss>);
  RegisterLoss<MeanSquaredLoss>(registry, MeanSquaredErrorGradient);
}

}  // namespace sluice

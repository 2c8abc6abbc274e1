#include "sluice/ops/softmax.h"

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"
#include "sluice/ops/softmax_row.h"

namespace sluice {
namespace {

// Each function is a forward op x -> y over rows of the last dimension and
// a backward-only op (g, y) -> dx, both from the output y alone.
struct SoftmaxFn {
  static constexpr std::string_view kName = "softmax";
  static constexpr std::string_view kGradName = "softmax_grad";
  template <typename T>
  static void Forward(const T* x, int64_t n, T* y) { SoftmaxRow(x, n, y); }
  // dx = y * (g - sum(g * y)).
  template <typename T>
  static void Backward(const T* g, const T* y, int64_t n, T* dx) {
    T dot = 0;
    for (int64_t i = 0; i < n; ++i) dot += g[i] * y[i];
    for (int64_t i = 0; i < n; ++i) dx[i] = y[i] * (g[i] - dot);
  }
};

struct LogSoftmaxFn {
  static constexpr std::string_view kName = "log_softmax";
  static constexpr std::string_view kGradName = "log_softmax_grad";
  // y = x - max - log(sum(exp(x - max))).
  template <typename T>
  static void Forward(const T* x, int64_t n, T* y) {
    const RowLogSumExp<T> lse = ComputeRowLogSumExp(x, n);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - lse.max - lse.log_sum;
  }
  // dx = g - exp(y) * sum(g).
  template <typename T>
  static void Backward(const T* g, const T* y, int64_t n, T* dx) {
    T sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += g[i];
    for (int64_t i = 0; i < n; ++i) dx[i] = g[i] - std::exp(y[i]) * sum;
  }
};

// Every input float, of input 0's dtype and shape, rank >= 1.
Result<std::vector<TensorMeta>> InferRows(std::string_view op, std::span<const Tensor> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    SLUICE_RETURN_IF_ERROR(CheckFloating(op, inputs, i));
    SLUICE_RETURN_IF_ERROR(CheckSameDType(op, inputs, i));
    SLUICE_RETURN_IF_ERROR(CheckSameShape(op, inputs, i));
  }
  if (inputs[0].rank() < 1) {
    return InvalidArgumentError(op, ": input 0 must have rank >= 1 (the function is over the last "
                                "dimension), got shape ", inputs[0].shape());
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), inputs[0].shape()}};
}

template <typename Fn>
Status RowKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const int64_t n = inputs[0].dim(inputs[0].rank() - 1);
  if (n == 0) return OkStatus();
  VisitFloating(inputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* a = inputs[0].data<T>();
    T* out = outputs[0].mutable_data<T>();
    const T* b = inputs.size() > 1 ? inputs[1].data<T>() : nullptr;
    ParallelFor(inputs[0].NumElements() / n, RowGrain(n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        if (b == nullptr) {
          Fn::Forward(a + r * n, n, out + r * n);
        } else {
          Fn::Backward(a + r * n, b + r * n, n, out + r * n);
        }
      }
    });
  });
  return OkStatus();
}

template <typename Fn>
Result<std::vector<Tensor>> RowGradient(const GradientContext& c) {
  static const OpDef& def = OpRegistry::Global().Get(Fn::kGradName);
  const Tensor inputs[] = {c.output_grads[0], c.outputs[0]};
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, RunSingleOutputOp(def, inputs));
  return std::vector<Tensor>{dx};
}

template <typename Fn>
void RegisterRowFn(OpRegistry& registry) {
  registry.Register({.name = Fn::kName,
                     .infer = [](std::span<const Tensor> inputs, const OpAttrs&) { return InferRows(Fn::kName, inputs); },
                     .gradient = RowGradient<Fn>,
                     .cpu_kernel = RowKernel<Fn>});
  // Backward-only; not differentiable itself.
  registry.Register({.name = Fn::kGradName,
                     .num_inputs = 2,
                     .infer = [](std::span<const Tensor> inputs, const OpAttrs&) { return InferRows(Fn::kGradName, inputs); },
                     .cpu_kernel = RowKernel<Fn>});
}

template <typename Fn>
Result<Tensor> RunRowFn(const Tensor& logits) {
  static const OpDef& def = OpRegistry::Global().Get(Fn::kName);
  const Tensor inputs[] = {logits};
  return RunSingleOutputOp(def, inputs);
}

}  // namespace

Result<Tensor> Softmax(const Tensor& logits) { return RunRowFn<SoftmaxFn>(logits); }
Result<Tensor> LogSoftmax(const Tensor& logits) { return RunRowFn<LogSoftmaxFn>(logits); }

void RegisterSoftmaxOps(OpRegistry& registry) {
  RegisterRowFn<SoftmaxFn>(registry);
  RegisterRowFn<LogSoftmaxFn>(registry);
}

}  // namespace sluice

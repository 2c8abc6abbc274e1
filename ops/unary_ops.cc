#include "sluice/ops/unary_ops.h"

#include <cmath>

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

// Forward functions y = f(x).
struct NegFn {
  static constexpr std::string_view kName = "neg";
  template <typename T> static T Apply(T x) { return -x; }
};
struct ReluFn {
  static constexpr std::string_view kName = "relu";
  template <typename T> static T Apply(T x) { return x > T(0) ? x : T(0); }
};
struct SigmoidFn {
  static constexpr std::string_view kName = "sigmoid";
  template <typename T> static T Apply(T x) {
    // Written so that neither branch overflows exp.
    if (x >= T(0)) return T(1) / (T(1) + std::exp(-x));
    const T e = std::exp(x);
    return e / (T(1) + e);
  }
};
struct TanhFn {
  static constexpr std::string_view kName = "tanh";
  template <typename T> static T Apply(T x) { return std::tanh(x); }
};
struct ExpFn {
  static constexpr std::string_view kName = "exp";
  template <typename T> static T Apply(T x) { return std::exp(x); }
};
struct LogFn {
  static constexpr std::string_view kName = "log";
  template <typename T> static T Apply(T x) { return std::log(x); }
};

// Backward functions dx = f'(g, y), from the output gradient and the output.
struct ReluGradFn {
  static constexpr std::string_view kName = "relu_grad";
  template <typename T> static T Apply(T g, T y) { return y > T(0) ? g : T(0); }
};
struct SigmoidGradFn {
  static constexpr std::string_view kName = "sigmoid_grad";
  template <typename T> static T Apply(T g, T y) { return g * y * (T(1) - y); }
};
struct TanhGradFn {
  static constexpr std::string_view kName = "tanh_grad";
  template <typename T> static T Apply(T g, T y) { return g * (T(1) - y * y); }
};

Result<std::vector<TensorMeta>> InferUnary(std::string_view op, std::span<const Tensor> inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    SLUICE_RETURN_IF_ERROR(CheckFloating(op, inputs, i));
    SLUICE_RETURN_IF_ERROR(CheckSameDType(op, inputs, i));
    SLUICE_RETURN_IF_ERROR(CheckSameShape(op, inputs, i));
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), inputs[0].shape()}};
}

// One kernel shape for both y = f(x) and dx = f'(g, y): element i of the
// output from element i of each input.
template <typename Fn>
Status ElementwiseKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  VisitFloating(outputs[0].dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* out = outputs[0].mutable_data<T>();
    const T* x = inputs[0].data<T>();
    if constexpr (requires { Fn::Apply(T{}); }) {
      ParallelFor(outputs[0].NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = Fn::Apply(x[i]);
      });
    } else {
      const T* y = inputs[1].data<T>();
      ParallelFor(outputs[0].NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) out[i] = Fn::Apply(x[i], y[i]);
      });
    }
  });
  return OkStatus();
}

template <typename Fn>
OpDef MakeElementwiseOpDef(int num_inputs, GradientFn gradient) {
  return OpDef{
      .name = Fn::kName,
      .num_inputs = num_inputs,
      .infer = [](std::span<const Tensor> inputs, const OpAttrs&) { return InferUnary(Fn::kName, inputs); },
      .gradient = gradient,
      .cpu_kernel = ElementwiseKernel<Fn>,
  };
}

template <typename Fn>
Result<Tensor> RunElementwise(const Tensor& x) {
  static const OpDef& def = OpRegistry::Global().Get(Fn::kName);
  const Tensor inputs[] = {x};
  return RunSingleOutputOp(def, inputs);
}

// dx from (g, y) through one of the *_grad ops.
template <typename GradFn>
Result<std::vector<Tensor>> GradientFromOutput(const GradientContext& c) {
  static const OpDef& def = OpRegistry::Global().Get(GradFn::kName);
  const Tensor inputs[] = {c.output_grads[0], c.outputs[0]};
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, RunSingleOutputOp(def, inputs));
  return std::vector<Tensor>{dx};
}

Result<std::vector<Tensor>> NegGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Neg(c.output_grads[0]));
  return std::vector<Tensor>{dx};
}

Result<std::vector<Tensor>> ExpGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Mul(c.output_grads[0], c.outputs[0]));
  return std::vector<Tensor>{dx};
}

Result<std::vector<Tensor>> LogGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor dx, Div(c.output_grads[0], c.inputs[0]));
  return std::vector<Tensor>{dx};
}

}  // namespace

Result<Tensor> Neg(const Tensor& x) { return RunElementwise<NegFn>(x); }
Result<Tensor> Relu(const Tensor& x) { return RunElementwise<ReluFn>(x); }
Result<Tensor> Sigmoid(const Tensor& x) { return RunElementwise<SigmoidFn>(x); }
Result<Tensor> Tanh(const Tensor& x) { return RunElementwise<TanhFn>(x); }
Result<Tensor> Exp(const Tensor& x) { return RunElementwise<ExpFn>(x); }
Result<Tensor> Log(const Tensor& x) { return RunElementwise<LogFn>(x); }

void RegisterUnaryOps(OpRegistry& registry) {
  registry.Register(MakeElementwiseOpDef<NegFn>(1, NegGradient));
  registry.Register(MakeElementwiseOpDef<ReluFn>(1, GradientFromOutput<ReluGradFn>));
  registry.Register(MakeElementwiseOpDef<SigmoidFn>(1, GradientFromOutput<SigmoidGradFn>));
  registry.Register(MakeElementwiseOpDef<TanhFn>(1, GradientFromOutput<TanhGradFn>));
  registry.Register(MakeElementwiseOpDef<ExpFn>(1, ExpGradient));
  registry.Register(MakeElementwiseOpDef<LogFn>(1, LogGradient));
  // Backward-only ops; not differentiable themselves.
  registry.Register(MakeElementwiseOpDef<ReluGradFn>(2, nullptr));
  registry.Register(MakeElementwiseOpDef<SigmoidGradFn>(2, nullptr));
  registry.Register(MakeElementwiseOpDef<TanhGradFn>(2, nullptr));
}

}  // namespace sluice

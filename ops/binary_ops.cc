#include "sluice/ops/binary_ops.h"

#include "sluice/ops/broadcast.h"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/run_op.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {
namespace {

Result<std::vector<TensorMeta>> InferBinary(std::string_view op, std::span<const Tensor> inputs) {
  SLUICE_RETURN_IF_ERROR(CheckFloating(op, inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckSameDType(op, inputs, 1));
  SLUICE_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(op, inputs[0].shape(), inputs[1].shape()));
  return std::vector<TensorMeta>{{inputs[0].dtype(), shape}};
}

template <typename Op>
Status BinaryKernel(std::span<const Tensor> inputs, std::span<Tensor> outputs) {
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& out = outputs[0];
  VisitFloating(out.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.mutable_data<T>();
    if (a.shape() == b.shape()) {
      ParallelFor(out.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) po[i] = Op::Apply(pa[i], pb[i]);
      });
      return;
    }
    ForEachBroadcastRow(out.shape(), BroadcastStrides(a.shape(), out.shape()),
                        BroadcastStrides(b.shape(), out.shape()),
                        [&](int64_t o, int64_t ia, int64_t ib, int64_t n, int64_t sa, int64_t sb) {
                          for (int64_t i = 0; i < n; ++i) po[o + i] = Op::Apply(pa[ia + i * sa], pb[ib + i * sb]);
                        });
  });
  return OkStatus();
}

struct AddOp {
  static constexpr std::string_view kName = "add";
  template <typename T>
  static T Apply(T a, T b) { return a + b; }
};
struct SubOp {
  static constexpr std::string_view kName = "sub";
  template <typename T>
  static T Apply(T a, T b) { return a - b; }
};
struct MulOp {
  static constexpr std::string_view kName = "mul";
  template <typename T>
  static T Apply(T a, T b) { return a * b; }
};
struct DivOp {
  static constexpr std::string_view kName = "div";
  template <typename T>
  static T Apply(T a, T b) { return a / b; }
};

template <typename Op>
OpDef MakeBinaryOpDef(GradientFn gradient) {
  return OpDef{
      .name = Op::kName,
      .num_inputs = 2,
      .infer = [](std::span<const Tensor> inputs, const OpAttrs&) { return InferBinary(Op::kName, inputs); },
      .gradient = gradient,
      .cpu_kernel = [](std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
        return BinaryKernel<Op>(inputs, outputs);
      },
  };
}

// Gradients: each partial derivative summed back to its input's shape.
Result<std::vector<Tensor>> AddGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor da, SumToShape(c.output_grads[0], c.inputs[0].shape()));
  SLUICE_ASSIGN_OR_RETURN(Tensor db, SumToShape(c.output_grads[0], c.inputs[1].shape()));
  return std::vector<Tensor>{da, db};
}

Result<std::vector<Tensor>> SubGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor da, SumToShape(c.output_grads[0], c.inputs[0].shape()));
  SLUICE_ASSIGN_OR_RETURN(Tensor neg, Neg(c.output_grads[0]));
  SLUICE_ASSIGN_OR_RETURN(Tensor db, SumToShape(neg, c.inputs[1].shape()));
  return std::vector<Tensor>{da, db};
}

Result<std::vector<Tensor>> MulGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor ga, Mul(c.output_grads[0], c.inputs[1]));
  SLUICE_ASSIGN_OR_RETURN(Tensor gb, Mul(c.output_grads[0], c.inputs[0]));
  SLUICE_ASSIGN_OR_RETURN(Tensor da, SumToShape(ga, c.inputs[0].shape()));
  SLUICE_ASSIGN_OR_RETURN(Tensor db, SumToShape(gb, c.inputs[1].shape()));
  return std::vector<Tensor>{da, db};
}

// d(a/b)/da = 1/b; d(a/b)/db = -(a/b)/b.
Result<std::vector<Tensor>> DivGradient(const GradientContext& c) {
  SLUICE_ASSIGN_OR_RETURN(Tensor ga, Div(c.output_grads[0], c.inputs[1]));
  SLUICE_ASSIGN_OR_RETURN(Tensor g_out, Mul(c.output_grads[0], c.outputs[0]));
  SLUICE_ASSIGN_OR_RETURN(Tensor g_out_over_b, Div(g_out, c.inputs[1]));
  SLUICE_ASSIGN_OR_RETURN(Tensor gb, Neg(g_out_over_b));
  SLUICE_ASSIGN_OR_RETURN(Tensor da, SumToShape(ga, c.inputs[0].shape()));
  SLUICE_ASSIGN_OR_RETURN(Tensor db, SumToShape(gb, c.inputs[1].shape()));
  return std::vector<Tensor>{da, db};
}

Result<Tensor> RunBinary(const OpDef& def, const Tensor& a, const Tensor& b) {
  const Tensor inputs[] = {a, b};
  return RunSingleOutputOp(def, inputs);
}

}  // namespace

Result<Tensor> Add(const Tensor& a, const Tensor& b) {
  static const OpDef& def = OpRegistry::Global().Get(AddOp::kName);
  return RunBinary(def, a, b);
}
Result<Tensor> Sub(const Tensor& a, const Tensor& b) {
  static const OpDef& def = OpRegistry::Global().Get(SubOp::kName);
  return RunBinary(def, a, b);
}
Result<Tensor> Mul(const Tensor& a, const Tensor& b) {
  static const OpDef& def = OpRegistry::Global().Get(MulOp::kName);
  return RunBinary(def, a, b);
}
Result<Tensor> Div(const Tensor& a, const Tensor& b) {
  static const OpDef& def = OpRegistry::Global().Get(DivOp::kName);
  return RunBinary(def, a, b);
}

void RegisterBinaryOps(OpRegistry& registry) {
  registry.Register(MakeBinaryOpDef<AddOp>(AddGradient));
  registry.Register(MakeBinaryOpDef<SubOp>(SubGradient));
  registry.Register(MakeBinaryOpDef<MulOp>(MulGradient));
  registry.Register(MakeBinaryOpDef<DivOp>(DivGradient));
}

}  // namespace sluice

// OpDef: what the executor knows of one tensor operation (matmul, relu, ...):
// its name, how many tensors it takes and gives, how its output shapes
// follow from its inputs, its gradient rule, and a kernel per device.
//
// A call is RunOp(def, inputs, attrs) (ops/run_op.h): infer the outputs,
// allocate them, run the kernel for the inputs' device. Kernels are pure
// functions that write into the preallocated outputs. Gradient rules are
// written with the public op functions (MatMul, Mul, ...), so they run on any
// device that has kernels for those ops.
// Thread safety: OpDefs are immutable once registered; kernels and gradient
// rules must be safe to call from any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

// The non-tensor arguments of one op call ("transpose_a" -> true,
// "axes" -> {0, 1}), by name. Few per op, so a flat list.
using AttrValue = std::variant<int64_t, double, bool, DType, std::vector<int64_t>>;

class OpAttrs {
 public:
  OpAttrs() = default;
  OpAttrs(std::initializer_list<std::pair<std::string_view, AttrValue>> values);

  OpAttrs& Set(std::string_view name, AttrValue value);
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  // REQUIRES: the attr is set with that type (the op's own function sets it).
  int64_t GetInt(std::string_view name) const { return std::get<int64_t>(Get(name)); }
  double GetFloat(std::string_view name) const { return std::get<double>(Get(name)); }
  bool GetBool(std::string_view name) const { return std::get<bool>(Get(name)); }
  DType GetDType(std::string_view name) const { return std::get<DType>(Get(name)); }
  const std::vector<int64_t>& GetInts(std::string_view name) const {
    return std::get<std::vector<int64_t>>(Get(name));
  }

  // "transpose_a=true, axes=[0, 1]".
  std::string DebugString() const;

 private:
  const AttrValue* Find(std::string_view name) const;
  const AttrValue& Get(std::string_view name) const;

  std::vector<std::pair<std::string, AttrValue>> values_;
};

// The dtype and shape of one output, decided before the kernel runs.
struct TensorMeta {
  DType dtype;
  Shape shape;
};

// Output dtypes and shapes from the inputs (their dtypes and shapes only;
// values are not read), or InvalidArgument naming the op, the input and
// expected vs found.
using ShapeFn = Result<std::vector<TensorMeta>> (*)(std::span<const Tensor> inputs,
                                                     const OpAttrs& attrs);

// Computes the outputs. REQUIRES: outputs allocated as the ShapeFn said, on
// the inputs' device. Errors are for values a ShapeFn cannot see (an index
// out of range); shapes and dtypes were checked before.
using KernelFn = Status (*)(std::span<const Tensor> inputs, const OpAttrs& attrs,
                            std::span<Tensor> outputs);

// What a gradient rule sees of one recorded call.
struct GradientContext {
  std::span<const Tensor> inputs;
  std::span<const Tensor> outputs;
  // d(target)/d(output i); an output the target does not depend on gets
  // zeros of its shape.
  std::span<const Tensor> output_grads;
  const OpAttrs& attrs;
  // needs_gradient[i]: whether the caller wants d/d(input i). Empty means
  // every input. A rule may return an invalid Tensor for an input that is
  // not needed (skipping, say, the product a matmul's constant input would
  // take); the rule never has to check.
  std::span<const bool> needs_gradient = {};

  bool NeedsGradient(size_t input) const { return needs_gradient.empty() || needs_gradient[input]; }
};

// d(target)/d(input i) for every input, in order; an invalid Tensor for an
// input that takes no gradient (integer indices, labels).
using GradientFn = Result<std::vector<Tensor>> (*)(const GradientContext& context);

inline constexpr int kVariadic = -1;  // num_inputs of an op taking any number

struct OpDef {
  std::string_view name;  // "matmul", as in error messages
  int num_inputs = 1;     // or kVariadic
  int num_outputs = 1;
  ShapeFn infer = nullptr;
  GradientFn gradient = nullptr;  // nullptr: not differentiable
  KernelFn cpu_kernel = nullptr;
  KernelFn cuda_kernel = nullptr;  // set by RegisterCudaBackend (model/cuda_backend.h)
};

}  // namespace sluice

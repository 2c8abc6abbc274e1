#include "sluice/ops/concat.h"

#include <cstring>

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

// A tensor seen as [outer, dim(axis), inner]: concat and its gradient copy
// one contiguous run of dim(axis) * inner elements per outer index.
struct AxisSplit {
  int axis = 0;
  int64_t outer = 1;
  int64_t inner_bytes = 0;  // bytes of one step along the axis
};

AxisSplit SplitAt(const Tensor& t, int axis) {
  AxisSplit split{.axis = axis, .inner_bytes = static_cast<int64_t>(DTypeSize(t.dtype()))};
  for (int d = 0; d < axis; ++d) split.outer *= t.dim(d);
  for (int d = axis + 1; d < t.rank(); ++d) split.inner_bytes *= t.dim(d);
  return split;
}

// Copies `rows` runs of `bytes`, from src every src_stride bytes to dst every
// dst_stride bytes.
void CopyRows(const char* src, int64_t src_stride, char* dst, int64_t dst_stride, int64_t rows, int64_t bytes) {
  if (bytes == 0) return;
  ParallelFor(rows, RowGrain(bytes / 4), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) std::memcpy(dst + r * dst_stride, src + r * src_stride, bytes);
  });
}

// A checked axis (negative counts from the end) in [0, rank).
int PositiveAxis(int64_t axis, int rank) { return static_cast<int>(axis < 0 ? axis + rank : axis); }

// The axis attr in [0, rank), or InvalidArgument.
Result<int> NormalizeAxis(std::string_view op, const Tensor& x, int64_t axis) {
  if (x.rank() == 0) return InvalidArgumentError(op, ": input 0 must have rank >= 1, got a scalar");
  if (axis < -x.rank() || axis >= x.rank()) {
    return InvalidArgumentError(op, ": axis ", axis, " is out of range for input 0 of shape ", x.shape());
  }
  return PositiveAxis(axis, x.rank());
}

Result<std::vector<TensorMeta>> InferConcat(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  if (inputs.empty()) return InvalidArgumentError("concat: expected at least one input, got none");
  if (inputs[0].dtype() == DType::kString) {
    return InvalidArgumentError("concat: input 0 must be numeric, got string");
  }
  SLUICE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis("concat", inputs[0], attrs.GetInt("axis")));
  Shape shape = inputs[0].shape();
  for (size_t i = 1; i < inputs.size(); ++i) {
    SLUICE_RETURN_IF_ERROR(CheckSameDType("concat", inputs, i));
    const Shape& other = inputs[i].shape();
    bool matches = other.rank() == shape.rank();
    for (int d = 0; matches && d < shape.rank(); ++d) matches = d == axis || other.dim(d) == shape.dim(d);
    if (!matches) {
      return InvalidArgumentError("concat: input ", i, " has shape ", other, " but input 0 has ",
                                  inputs[0].shape(), "; all dimensions but axis ", axis, " must match");
    }
    shape.set_dim(axis, shape.dim(axis) + other.dim(axis));
  }
  return std::vector<TensorMeta>{{inputs[0].dtype(), shape}};
}

Status ConcatKernel(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  Tensor& out = outputs[0];
  const int axis = PositiveAxis(attrs.GetInt("axis"), out.rank());
  const AxisSplit split = SplitAt(out, axis);
  const int64_t out_stride = out.dim(axis) * split.inner_bytes;
  auto* dst = static_cast<char*>(out.raw_data());
  for (const Tensor& input : inputs) {
    const int64_t bytes = input.dim(axis) * split.inner_bytes;
    CopyRows(static_cast<const char*>(input.raw_data()), bytes, dst, out_stride, split.outer, bytes);
    dst += bytes;
  }
  return OkStatus();
}

// The backward op: x[..., begin : begin + size, ...] along `axis` (already
// in [0, rank)), as the gradient of each concat input.
Result<std::vector<TensorMeta>> InferConcatSlice(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  SLUICE_ASSIGN_OR_RETURN(const int axis, NormalizeAxis("concat_slice", inputs[0], attrs.GetInt("axis")));
  const int64_t begin = attrs.GetInt("begin"), size = attrs.GetInt("size");
  Shape shape = inputs[0].shape();
  if (begin < 0 || size < 0 || begin + size > shape.dim(axis)) {
    return InvalidArgumentError("concat_slice: [", begin, ", ", begin + size, ") is outside axis ", axis,
                                " of input 0 of shape ", shape);
  }
  shape.set_dim(axis, size);
  return std::vector<TensorMeta>{{inputs[0].dtype(), shape}};
}

Status ConcatSliceKernel(std::span<const Tensor> inputs, const OpAttrs& attrs, std::span<Tensor> outputs) {
  const Tensor& x = inputs[0];
  const AxisSplit split = SplitAt(x, static_cast<int>(attrs.GetInt("axis")));
  const int64_t bytes = attrs.GetInt("size") * split.inner_bytes;
  CopyRows(static_cast<const char*>(x.raw_data()) + attrs.GetInt("begin") * split.inner_bytes,
           x.dim(split.axis) * split.inner_bytes, static_cast<char*>(outputs[0].raw_data()), bytes, split.outer,
           bytes);
  return OkStatus();
}

// Each input's gradient is its extent of the output gradient.
Result<std::vector<Tensor>> ConcatGradient(const GradientContext& c) {
  static const OpDef& slice = OpRegistry::Global().Get("concat_slice");
  const Tensor& g = c.output_grads[0];
  const int axis = PositiveAxis(c.attrs.GetInt("axis"), g.rank());
  std::vector<Tensor> grads;
  grads.reserve(c.inputs.size());
  int64_t begin = 0;
  for (const Tensor& input : c.inputs) {
    const int64_t size = input.dim(axis);
    const Tensor inputs[] = {g};
    SLUICE_ASSIGN_OR_RETURN(grads.emplace_back(),
                            RunSingleOutputOp(slice, inputs, OpAttrs{{"axis", int64_t{axis}}, {"begin", begin}, {"size", size}}));
    begin += size;
  }
  return grads;
}

}  // namespace

Result<Tensor> Concat(std::span<const Tensor> values, int64_t axis) {
  static const OpDef& def = OpRegistry::Global().Get("concat");
  return RunSingleOutputOp(def, values, OpAttrs{{"axis", axis}});
}

void RegisterConcatOp(OpRegistry& registry) {
  registry.Register({.name = "concat", .num_inputs = kVariadic, .infer = InferConcat, .gradient = ConcatGradient,
                     .cpu_kernel = ConcatKernel});
  // Backward-only; not differentiable itself.
  registry.Register({.name = "concat_slice", .infer = InferConcatSlice, .cpu_kernel = ConcatSliceKernel});
}

}  // namespace sluice

#include "sluice/ops/embedding_lookup.h"

#include <algorithm>
#include <cstring>

#include "sluice/ops/op_checks.h"
#include "sluice/ops/op_registry.h"
#include "sluice/ops/parallel_for.h"
#include "sluice/ops/run_op.h"

namespace sluice {
namespace {

// ids' shape with `depth` appended, or InvalidArgument past kMaxRank.
Result<Shape> AppendDim(std::string_view op, const Shape& ids, int64_t depth) {
  if (ids.rank() >= kMaxRank) {
    return InvalidArgumentError(op, ": ids of shape ", ids, " would give an output above the maximum rank ",
                                kMaxRank);
  }
  std::array<int64_t, kMaxRank> dims{};
  std::copy(ids.dims().begin(), ids.dims().end(), dims.begin());
  dims[ids.rank()] = depth;
  return Shape(std::span<const int64_t>(dims.data(), ids.rank() + 1));
}

Result<std::vector<TensorMeta>> InferEmbeddingLookup(std::span<const Tensor> inputs, const OpAttrs&) {
  SLUICE_RETURN_IF_ERROR(CheckFloating("embedding_lookup", inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckRank("embedding_lookup", inputs, 0, 2));
  SLUICE_RETURN_IF_ERROR(CheckIndexDType("embedding_lookup", inputs, 1));
  SLUICE_ASSIGN_OR_RETURN(Shape shape, AppendDim("embedding_lookup", inputs[1].shape(), inputs[0].dim(1)));
  return std::vector<TensorMeta>{{inputs[0].dtype(), shape}};
}

// Every id in [0, rows), or InvalidArgument with the first bad id's position.
Status CheckIds(std::string_view op, const Tensor& ids, int64_t rows) {
  for (int64_t i = 0; i < ids.NumElements(); ++i) {
    const int64_t id = IndexAt(ids, i);
    if (id < 0 || id >= rows) return IdOutOfRangeError(op, ids.shape(), i, id, rows);
  }
  return OkStatus();
}

Status EmbeddingLookupKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& table = inputs[0];
  const Tensor& ids = inputs[1];
  SLUICE_RETURN_IF_ERROR(CheckIds("embedding_lookup", ids, table.dim(0)));
  const int64_t depth = table.dim(1);
  const size_t row_bytes = static_cast<size_t>(depth) * DTypeSize(table.dtype());
  if (row_bytes == 0) return OkStatus();
  const auto* from = static_cast<const char*>(table.raw_data());
  auto* to = static_cast<char*>(outputs[0].raw_data());
  ParallelFor(ids.NumElements(), RowGrain(depth), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) std::memcpy(to + i * row_bytes, from + IndexAt(ids, i) * row_bytes, row_bytes);
  });
  return OkStatus();
}

// The backward op: (ids, g of shape ids + [D]) -> [num_rows, D], each row of
// g added into the row its id names.
Result<std::vector<TensorMeta>> InferEmbeddingLookupGrad(std::span<const Tensor> inputs, const OpAttrs& attrs) {
  constexpr std::string_view kOp = "embedding_lookup_grad";
  SLUICE_RETURN_IF_ERROR(CheckIndexDType(kOp, inputs, 0));
  SLUICE_RETURN_IF_ERROR(CheckFloating(kOp, inputs, 1));
  const Tensor& g = inputs[1];
  const int64_t depth = g.rank() > 0 ? g.dim(g.rank() - 1) : 0;
  SLUICE_ASSIGN_OR_RETURN(Shape expected, AppendDim(kOp, inputs[0].shape(), depth));
  if (g.shape() != expected) {
    return InvalidArgumentError(kOp, ": input 1 has shape ", g.shape(), ", expected ids' shape plus one, ",
                                expected);
  }
  return std::vector<TensorMeta>{{g.dtype(), Shape{attrs.GetInt("num_rows"), depth}}};
}

Status EmbeddingLookupGradKernel(std::span<const Tensor> inputs, const OpAttrs&, std::span<Tensor> outputs) {
  const Tensor& ids = inputs[0];
  Tensor& dtable = outputs[0];
  SLUICE_RETURN_IF_ERROR(CheckIds("embedding_lookup_grad", ids, dtable.dim(0)));
  const int64_t depth = dtable.dim(1);
  VisitFloating(dtable.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* g = inputs[1].data<T>();
    T* out = dtable.mutable_data<T>();
    std::fill(out, out + dtable.NumElements(), T(0));
    // Serial: ids may repeat, and a row-sized add is cheap next to the fill.
    for (int64_t i = 0; i < ids.NumElements(); ++i) {
      T* row = out + IndexAt(ids, i) * depth;
      for (int64_t k = 0; k < depth; ++k) row[k] += g[i * depth + k];
    }
  });
  return OkStatus();
}

Result<std::vector<Tensor>> EmbeddingLookupGradient(const GradientContext& c) {
  static const OpDef& def = OpRegistry::Global().Get("embedding_lookup_grad");
  const Tensor inputs[] = {c.inputs[1], c.output_grads[0]};
  SLUICE_ASSIGN_OR_RETURN(Tensor dtable,
                          RunSingleOutputOp(def, inputs, OpAttrs{{"num_rows", c.inputs[0].dim(0)}}));
  return std::vector<Tensor>{dtable, Tensor()};
}

}  // namespace

Result<Tensor> EmbeddingLookup(const Tensor& table, const Tensor& ids) {
  static const OpDef& def = OpRegistry::Global().Get("embedding_lookup");
  const Tensor inputs[] = {table, ids};
  return RunSingleOutputOp(def, inputs);
}

void RegisterEmbeddingLookupOp(OpRegistry& registry) {
  registry.Register({.name = "embedding_lookup", .num_inputs = 2, .infer = InferEmbeddingLookup,
                     .gradient = EmbeddingLookupGradient, .cpu_kernel = EmbeddingLookupKernel});
  // Backward-only; not differentiable itself.
  registry.Register({.name = "embedding_lookup_grad", .num_inputs = 2, .infer = InferEmbeddingLookupGrad,
                     .cpu_kernel = EmbeddingLookupGradKernel});
}

}  // namespace sluice

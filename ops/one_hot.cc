#include "sluice/ops/one_hot.h"

namespace sluice {
namespace {

// Sets out[i, index[i]] = 1 in a zero-filled output of `depth` columns.
template <typename Index>
void SetHotValues(const Tensor& indices, int64_t depth, Tensor& out) {
  const Index* index = indices.data<Index>();
  const int64_t n = indices.NumElements();
  VisitNumericDType(out.dtype(), [&](auto out_zero) {
    using Out = decltype(out_zero);
    Out* dst = out.mutable_data<Out>();
    const Out one = ConvertValue<Out>(1);
    for (int64_t i = 0; i < n; ++i) {
      const auto k = static_cast<int64_t>(index[i]);
      if (k >= 0 && k < depth) dst[i * depth + k] = one;
    }
  });
}

}  // namespace

Result<Tensor> OneHot(const Tensor& indices, int64_t depth, DType dtype) {
  if (!IsInteger(indices.dtype())) {
    return InvalidArgumentError("OneHot: indices must be uint8, int32 or int64, got ",
                                indices.dtype());
  }
  if (depth <= 0) return InvalidArgumentError("OneHot: depth must be > 0, got ", depth);
  if (dtype == DType::kString)
    return InvalidArgumentError("OneHot: dtype must be numeric, got string");
  if (indices.rank() >= kMaxRank) {
    return InvalidArgumentError("OneHot: indices of shape ", indices.shape(),
                                " would give an output above the maximum rank ", kMaxRank);
  }
  std::vector<int64_t> dims(indices.shape().dims().begin(), indices.shape().dims().end());
  dims.push_back(depth);
  // Zero-filled: every row starts off. The depth comes from the user, so the
  // size is checked.
  Result<Tensor> allocated = Tensor::TryAllocate(dtype, Shape(dims));
  if (!allocated.ok()) return allocated.status().WithContext(StrCat("OneHot: depth ", depth));
  Tensor& out = *allocated;
  switch (indices.dtype()) {
    case DType::kUInt8: SetHotValues<uint8_t>(indices, depth, out); break;
    case DType::kInt32: SetHotValues<int32_t>(indices, depth, out); break;
    default: SetHotValues<int64_t>(indices, depth, out); break;  // int64, the last integer dtype
  }
  return allocated;
}

}  // namespace sluice

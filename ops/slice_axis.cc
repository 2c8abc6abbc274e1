#include "sluice/ops/slice_axis.h"

#include <algorithm>

namespace sluice {

SliceBounds ResolveSliceBounds(int64_t dim, int64_t begin, std::optional<int64_t> end) {
  const auto resolve = [dim](int64_t i) { return std::clamp(i < 0 ? i + dim : i, int64_t{0}, dim); };
  const int64_t b = resolve(begin);
  const int64_t e = end.has_value() ? resolve(*end) : dim;
  return {b, std::max(b, e)};
}

Result<Tensor> SliceAxis(const Tensor& x, int64_t axis, int64_t begin, std::optional<int64_t> end) {
  const int rank = x.rank();
  if (rank == 0) return InvalidArgumentError("slice: cannot slice a scalar");
  if (axis < -rank || axis >= rank) {
    return InvalidArgumentError("slice: axis ", axis, " is outside [", -rank, ", ", rank, ") for shape ", x.shape());
  }
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  const SliceBounds bounds = ResolveSliceBounds(x.dim(a), begin, end);
  std::vector<int64_t> dims(x.shape().dims().begin(), x.shape().dims().end());
  dims[a] = bounds.end - bounds.begin;
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(x.dtype(), Shape(dims), {.fill = Buffer::Fill::kUninitialized}));
  int64_t outer = 1;
  for (int d = 0; d < a; ++d) outer *= x.dim(d);
  int64_t inner = 1;
  for (int d = a + 1; d < rank; ++d) inner *= x.dim(d);
  const int64_t in_row = x.dim(a) * inner;
  const int64_t out_row = dims[a] * inner;
  VisitDType(x.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    T* po = out.mutable_data<T>();
    for (int64_t o = 0; o < outer; ++o) {
      std::copy_n(in + o * in_row + bounds.begin * inner, out_row, po + o * out_row);
    }
  });
  return out;
}

}  // namespace sluice

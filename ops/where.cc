#include "sluice/ops/where.h"

#include <array>

#include "sluice/ops/broadcast.h"

namespace sluice {

Result<Tensor> Where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  if (condition.dtype() != DType::kBool) {
    return InvalidArgumentError("where: the condition must be bool, got ", condition.dtype());
  }
  if (a.dtype() != b.dtype()) {
    return InvalidArgumentError("where: the two branches have different dtypes, ", a.dtype(), " and ", b.dtype());
  }
  SLUICE_ASSIGN_OR_RETURN(const Shape ab, BroadcastShapes("where", a.shape(), b.shape()));
  SLUICE_ASSIGN_OR_RETURN(const Shape shape, BroadcastShapes("where", condition.shape(), ab));
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(a.dtype(), shape, {.fill = Buffer::Fill::kUninitialized}));
  const int rank = shape.rank();
  const std::array<int64_t, kMaxRank> strides[3] = {BroadcastStrides(condition.shape(), shape),
                                                    BroadcastStrides(a.shape(), shape),
                                                    BroadcastStrides(b.shape(), shape)};
  VisitDType(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const bool* pc = condition.data<bool>();
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    T* po = out.mutable_data<T>();
    std::array<int64_t, kMaxRank> index{};
    int64_t offset[3] = {0, 0, 0};
    const int64_t n = shape.NumElements();
    for (int64_t o = 0; o < n; ++o) {
      po[o] = pc[offset[0]] ? pa[offset[1]] : pb[offset[2]];
      // Advance the row-major index, carrying into outer dims.
      for (int d = rank - 1; d >= 0; --d) {
        for (int k = 0; k < 3; ++k) offset[k] += strides[k][d];
        if (++index[d] < shape.dim(d)) break;
        for (int k = 0; k < 3; ++k) offset[k] -= strides[k][d] * shape.dim(d);
        index[d] = 0;
      }
    }
  });
  return out;
}

}  // namespace sluice

#include "sluice/ops/pad_or_truncate.h"

#include <algorithm>
#include <cstring>

namespace sluice {

Result<PaddedValues> PadOrTruncate(const Tensor& values, int64_t length, double pad_value) {
  if (values.rank() != 1) {
    return InvalidArgumentError("pad_or_truncate: expected a vector, got ", values.dtype(), values.shape());
  }
  if (length < 0) return InvalidArgumentError("pad_or_truncate: length must be >= 0, got ", length);
  const int64_t kept = std::min(values.dim(0), length);
  PaddedValues out{.values = Tensor::Allocate(values.dtype(), Shape{length}),
                   .mask = Tensor::Allocate(DType::kInt64, Shape{length})};
  std::fill_n(out.mask.mutable_data<int64_t>(), kept, int64_t{1});
  if (values.dtype() == DType::kString) {
    std::copy_n(values.data<TString>(), kept, out.values.mutable_data<TString>());
    return out;
  }
  VisitNumericDType(values.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.values.mutable_data<T>();
    std::memcpy(dst, values.data<T>(), static_cast<size_t>(kept) * sizeof(T));
    std::fill(dst + kept, dst + length, static_cast<T>(pad_value));
  });
  return out;
}

}  // namespace sluice

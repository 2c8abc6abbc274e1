#include "ops/cast.h"

namespace sluice {

Result<Tensor> Cast(const Tensor& x, DType to) {
  const DType from = x.dtype();
  if ((from == DType::kString) != (to == DType::kString)) {
    return InvalidArgumentError("Cast: cannot cast ", from, " to ", to,
                                " (string tensors cast only to string)");
  }
  if (from == to) return x.Clone();
  Tensor out = Tensor::Allocate(to, x.shape());
  const int64_t n = x.NumElements();
  VisitNumericDType(from, [&](auto from_zero) {
    using From = decltype(from_zero);
    VisitNumericDType(to, [&](auto to_zero) {
      using To = decltype(to_zero);
      const From* src = x.data<From>();
      To* dst = out.mutable_data<To>();
      for (int64_t i = 0; i < n; ++i) dst[i] = ConvertValue<To>(src[i]);
    });
  });
  return out;
}

}  // namespace sluice

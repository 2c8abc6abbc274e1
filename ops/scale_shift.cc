#include "sluice/ops/scale_shift.h"

namespace sluice {

DType ScaleShiftOutputDType(DType dtype) {
  SLUICE_CHECK(dtype != DType::kString) << "ScaleShift has no output dtype for string";
  return IsFloating(dtype) ? dtype : DType::kFloat32;
}

Result<Tensor> ScaleShift(const Tensor& x, double scale, double shift) {
  if (x.dtype() == DType::kString) {
    return InvalidArgumentError("ScaleShift: expected a numeric tensor, got ", x.dtype());
  }
  Tensor out = Tensor::AllocateUninitialized(ScaleShiftOutputDType(x.dtype()), x.shape());  // every value written below
  const int64_t n = x.NumElements();
  VisitNumericDType(x.dtype(), [&](auto in_zero) {
    using In = decltype(in_zero);
    VisitNumericDType(out.dtype(), [&](auto out_zero) {
      using Out = decltype(out_zero);
      const In* src = x.data<In>();
      Out* dst = out.mutable_data<Out>();
      for (int64_t i = 0; i < n; ++i) {
        dst[i] = ConvertValue<Out>(ConvertValue<double>(src[i]) * scale + shift);
      }
    });
  });
  return out;
}

}  // namespace sluice

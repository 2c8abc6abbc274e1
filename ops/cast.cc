#include "ops/cast.h"

#include <cmath>
#include <limits>
#include <type_traits>

namespace sluice {
namespace {

template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// One value, with the conversions of cast.h. ConvertValue goes through
// double, which would lose int64 precision and is undefined for floating
// values out of an integer's range, so those two cases are handled here.
template <typename To, typename From>
To CastValue(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (kIsInteger<To> && std::is_integral_v<From>) {
    return static_cast<To>(value);
  } else if constexpr (kIsInteger<To>) {
    const double wide = ConvertValue<double>(value);
    if (std::isnan(wide)) return 0;
    // Compare against min and max + 1, exact doubles for every integer type
    // (int64's max itself is not a double).
    constexpr double kLow = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double kHighExclusive =
        static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2;
    if (wide <= kLow) return std::numeric_limits<To>::min();
    if (wide >= kHighExclusive) return std::numeric_limits<To>::max();
    return static_cast<To>(wide);
  } else {
    return ConvertValue<To>(value);
  }
}

}  // namespace

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
      for (int64_t i = 0; i < n; ++i) dst[i] = CastValue<To>(src[i]);
    });
  });
  return out;
}

}  // namespace sluice

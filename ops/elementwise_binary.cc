#include "sluice/ops/elementwise_binary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "sluice/ops/broadcast.h"

namespace sluice {
namespace {

bool IsArithmetic(BinaryOp op) { return op <= BinaryOp::kMax; }
bool IsComparison(BinaryOp op) { return op >= BinaryOp::kEqual && op <= BinaryOp::kGreaterEqual; }

// Integer arithmetic in the unsigned type of the same width, where overflow
// wraps instead of being undefined.
template <typename T>
T Wrap(std::make_unsigned_t<T> value) {
  return static_cast<T>(value);
}

template <typename T>
T Apply(BinaryOp op, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case BinaryOp::kAdd: return Wrap<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case BinaryOp::kSub: return Wrap<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
      case BinaryOp::kMul: return Wrap<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
      // b != 0: checked before. min / -1 overflows: it wraps to min.
      case BinaryOp::kDiv:
        if (std::is_signed_v<T> && b == static_cast<T>(-1)) return Wrap<T>(static_cast<U>(U{0} - static_cast<U>(a)));
        return static_cast<T>(a / b);
      case BinaryOp::kMod:
        if (std::is_signed_v<T> && b == static_cast<T>(-1)) return T{0};
        return static_cast<T>(a % b);
      case BinaryOp::kMin: return std::min(a, b);
      case BinaryOp::kMax: return std::max(a, b);
      default: break;
    }
  } else {
    switch (op) {
      case BinaryOp::kAdd: return a + b;
      case BinaryOp::kSub: return a - b;
      case BinaryOp::kMul: return a * b;
      case BinaryOp::kDiv: return a / b;
      case BinaryOp::kMod: return std::fmod(a, b);
      case BinaryOp::kMin: return a != a || b != b ? std::numeric_limits<T>::quiet_NaN() : std::min(a, b);
      case BinaryOp::kMax: return a != a || b != b ? std::numeric_limits<T>::quiet_NaN() : std::max(a, b);
      default: break;
    }
  }
  return T{};
}

template <typename T>
bool Compare(BinaryOp op, const T& a, const T& b) {
  switch (op) {
    case BinaryOp::kEqual: return a == b;
    case BinaryOp::kNotEqual: return !(a == b);
    case BinaryOp::kLess: return a < b;
    case BinaryOp::kLessEqual: return a <= b;
    case BinaryOp::kGreater: return a > b;
    case BinaryOp::kGreaterEqual: return a >= b;
    default: break;
  }
  return false;
}

// out[i] = f(a[i'], b[i'']) over the broadcast of a and b, with fast paths
// for equal shapes and a scalar operand.
template <typename In, typename Out, typename F>
void Broadcast(const Tensor& a, const Tensor& b, Tensor& out, F f) {
  const In* pa = a.data<In>();
  const In* pb = b.data<In>();
  Out* po = out.mutable_data<Out>();
  const int64_t n = out.NumElements();
  if (a.shape() == b.shape()) {
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], pb[i]);
  } else if (b.NumElements() == 1 && a.shape() == out.shape()) {
    const In s = pb[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(pa[i], s);
  } else if (a.NumElements() == 1 && b.shape() == out.shape()) {
    const In s = pa[0];
    for (int64_t i = 0; i < n; ++i) po[i] = f(s, pb[i]);
  } else {
    ForEachBroadcastRow(out.shape(), BroadcastStrides(a.shape(), out.shape()),
                        BroadcastStrides(b.shape(), out.shape()),
                        [&](int64_t o, int64_t ia, int64_t ib, int64_t count, int64_t sa, int64_t sb) {
                          for (int64_t i = 0; i < count; ++i) po[o + i] = f(pa[ia + i * sa], pb[ib + i * sb]);
                        });
  }
}

template <typename T>
bool HasZero(const Tensor& t) {
  const T* p = t.data<T>();
  return std::any_of(p, p + t.NumElements(), [](T v) { return v == T{0}; });
}

bool IsHalf(DType dtype) { return dtype == DType::kFloat16 || dtype == DType::kBFloat16; }

}  // namespace

std::string_view BinaryOpName(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return "add";
    case BinaryOp::kSub: return "sub";
    case BinaryOp::kMul: return "mul";
    case BinaryOp::kDiv: return "div";
    case BinaryOp::kMod: return "mod";
    case BinaryOp::kMin: return "min";
    case BinaryOp::kMax: return "max";
    case BinaryOp::kEqual: return "equal";
    case BinaryOp::kNotEqual: return "not_equal";
    case BinaryOp::kLess: return "less";
    case BinaryOp::kLessEqual: return "less_equal";
    case BinaryOp::kGreater: return "greater";
    case BinaryOp::kGreaterEqual: return "greater_equal";
    case BinaryOp::kAnd: return "and";
    case BinaryOp::kOr: return "or";
  }
  return "?";
}

Result<DType> BinaryOutputDType(BinaryOp op, DType dtype) {
  const bool numeric = IsInteger(dtype) || IsFloating(dtype);
  if (IsHalf(dtype)) {
    return InvalidArgumentError(BinaryOpName(op), " does not take ", dtype, "; cast it to float32 first");
  }
  if (IsArithmetic(op)) {
    if (numeric) return dtype;
    return InvalidArgumentError(BinaryOpName(op), " takes integer or floating operands, got ", dtype);
  }
  if (IsComparison(op)) {
    const bool string_ok = op == BinaryOp::kEqual || op == BinaryOp::kNotEqual;
    if (numeric || dtype == DType::kBool || (dtype == DType::kString && string_ok)) return DType::kBool;
    return InvalidArgumentError(BinaryOpName(op), " does not compare ", dtype,
                                " operands (strings compare with == and != only)");
  }
  if (dtype == DType::kBool) return DType::kBool;
  return InvalidArgumentError(BinaryOpName(op), " takes bool operands, got ", dtype);
}

Result<Tensor> ElementwiseBinary(BinaryOp op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    return InvalidArgumentError(BinaryOpName(op), ": operands have different dtypes, ", a.dtype(), " and ",
                                b.dtype());
  }
  SLUICE_ASSIGN_OR_RETURN(const DType out_dtype, BinaryOutputDType(op, a.dtype()));
  SLUICE_ASSIGN_OR_RETURN(const Shape shape, BroadcastShapes(BinaryOpName(op), a.shape(), b.shape()));
  if ((op == BinaryOp::kDiv || op == BinaryOp::kMod) && IsInteger(a.dtype())) {
    const bool zero = VisitNumericDType(a.dtype(), [&](auto zero_value) { return HasZero<decltype(zero_value)>(b); });
    if (zero) return InvalidArgumentError(BinaryOpName(op), ": integer division by zero");
  }
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(out_dtype, shape, {.fill = Buffer::Fill::kUninitialized}));
  if (a.dtype() == DType::kString) {
    Broadcast<TString, bool>(a, b, out, [op](const TString& x, const TString& y) { return Compare(op, x, y); });
    return out;
  }
  VisitNumericDType(a.dtype(), [&](auto zero_value) {
    using T = decltype(zero_value);
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      SLUICE_CHECK(false) << "half dtypes are refused above";
    } else if (IsComparison(op)) {
      Broadcast<T, bool>(a, b, out, [op](T x, T y) { return Compare(op, x, y); });
    } else if (op == BinaryOp::kAnd) {
      Broadcast<T, bool>(a, b, out, [](T x, T y) { return static_cast<bool>(x) && static_cast<bool>(y); });
    } else if (op == BinaryOp::kOr) {
      Broadcast<T, bool>(a, b, out, [](T x, T y) { return static_cast<bool>(x) || static_cast<bool>(y); });
    } else if constexpr (!std::is_same_v<T, bool>) {
      // Dispatching per operator outside the loop lets each loop vectorise.
      switch (op) {
        case BinaryOp::kAdd: Broadcast<T, T>(a, b, out, [](T x, T y) { return Apply(BinaryOp::kAdd, x, y); }); break;
        case BinaryOp::kSub: Broadcast<T, T>(a, b, out, [](T x, T y) { return Apply(BinaryOp::kSub, x, y); }); break;
        case BinaryOp::kMul: Broadcast<T, T>(a, b, out, [](T x, T y) { return Apply(BinaryOp::kMul, x, y); }); break;
        default: Broadcast<T, T>(a, b, out, [op](T x, T y) { return Apply(op, x, y); }); break;
      }
    }
  });
  return out;
}

}  // namespace sluice

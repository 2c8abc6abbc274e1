#include "sluice/ops/elementwise_unary.h"

#include <cmath>
#include <type_traits>

namespace sluice {
namespace {

bool TakesFloatingOnly(UnaryOp op) { return op >= UnaryOp::kExp && op <= UnaryOp::kRound; }

template <typename In, typename Out, typename F>
void Map(const Tensor& x, Tensor& out, F f) {
  const In* in = x.data<In>();
  Out* po = out.mutable_data<Out>();
  const int64_t n = x.NumElements();
  for (int64_t i = 0; i < n; ++i) po[i] = f(in[i]);
}

template <typename T>
void ApplyNumeric(UnaryOp op, const Tensor& x, Tensor& out) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    // In the unsigned type, where -min wraps to min instead of overflowing.
    if (op == UnaryOp::kNeg) Map<T, T>(x, out, [](T v) { return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(v))); });
    if (op == UnaryOp::kAbs) {
      Map<T, T>(x, out, [](T v) { return v < T{0} ? static_cast<T>(static_cast<U>(U{0} - static_cast<U>(v))) : v; });
    }
  } else {
    switch (op) {
      case UnaryOp::kNeg: Map<T, T>(x, out, [](T v) { return -v; }); break;
      case UnaryOp::kAbs: Map<T, T>(x, out, [](T v) { return std::abs(v); }); break;
      case UnaryOp::kExp: Map<T, T>(x, out, [](T v) { return std::exp(v); }); break;
      case UnaryOp::kLog: Map<T, T>(x, out, [](T v) { return std::log(v); }); break;
      case UnaryOp::kSqrt: Map<T, T>(x, out, [](T v) { return std::sqrt(v); }); break;
      case UnaryOp::kFloor: Map<T, T>(x, out, [](T v) { return std::floor(v); }); break;
      // nearbyint rounds half to even in the default rounding mode.
      case UnaryOp::kRound: Map<T, T>(x, out, [](T v) { return std::nearbyint(v); }); break;
      default: break;
    }
  }
}

}  // namespace

std::string_view UnaryOpName(UnaryOp op) {
  switch (op) {
    case UnaryOp::kNeg: return "neg";
    case UnaryOp::kAbs: return "abs";
    case UnaryOp::kExp: return "exp";
    case UnaryOp::kLog: return "log";
    case UnaryOp::kSqrt: return "sqrt";
    case UnaryOp::kFloor: return "floor";
    case UnaryOp::kRound: return "round";
    case UnaryOp::kLogicalNot: return "not";
    case UnaryOp::kStringLength: return "strlen";
  }
  return "?";
}

Result<DType> UnaryOutputDType(UnaryOp op, DType dtype) {
  switch (op) {
    case UnaryOp::kLogicalNot:
      if (dtype == DType::kBool) return DType::kBool;
      return InvalidArgumentError("not takes a bool operand, got ", dtype);
    case UnaryOp::kStringLength:
      if (dtype == DType::kString) return DType::kInt32;
      return InvalidArgumentError("strlen takes a string operand, got ", dtype);
    default: break;
  }
  if (dtype == DType::kFloat32 || dtype == DType::kFloat64) return dtype;
  if (IsInteger(dtype) && !TakesFloatingOnly(op)) return dtype;
  return InvalidArgumentError(UnaryOpName(op), TakesFloatingOnly(op) ? " takes a float32 or float64 operand, got "
                                                                     : " takes an integer, float32 or float64 operand, got ",
                              dtype, dtype == DType::kFloat16 || dtype == DType::kBFloat16 ? "; cast it to float32 first" : "");
}

Result<Tensor> ElementwiseUnary(UnaryOp op, const Tensor& x) {
  SLUICE_ASSIGN_OR_RETURN(const DType out_dtype, UnaryOutputDType(op, x.dtype()));
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(out_dtype, x.shape(), {.fill = Buffer::Fill::kUninitialized}));
  switch (op) {
    case UnaryOp::kLogicalNot: Map<bool, bool>(x, out, [](bool v) { return !v; }); break;
    case UnaryOp::kStringLength:
      Map<TString, int32_t>(x, out, [](const TString& s) { return static_cast<int32_t>(s.size()); });
      break;
    default:
      VisitNumericDType(x.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) ApplyNumeric<T>(op, x, out);
      });
  }
  return out;
}

}  // namespace sluice

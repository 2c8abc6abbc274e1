// DType: the element types a Tensor can hold, with sizes, names and the
// C++ type each maps to. float16 and bfloat16 are stored as 16-bit patterns
// (Float16 / BFloat16) and converted through float.
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <string_view>

#include "sluice/core/host_device.h"
#include "sluice/core/status.h"
#include "sluice/core/tstring.h"

namespace sluice {

enum class DType : uint8_t {
  kBool,
  kUInt8,
  kInt32,
  kInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kString,
};

// IEEE 754 half precision, stored as its bit pattern.
struct Float16 {
  uint16_t bits = 0;
  Float16() = default;
  explicit Float16(float value);
  explicit operator float() const;
  friend bool operator==(Float16 a, Float16 b) { return a.bits == b.bits; }
};

// bfloat16 (the high half of a float32), stored as its bit pattern.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float value);
  explicit operator float() const;
  friend bool operator==(BFloat16 a, BFloat16 b) { return a.bits == b.bits; }
};

// Bytes per element; for kString the size of the TString slot. Inline: it
// sits on per-element paths (Tensor::Row).
constexpr size_t DTypeSize(DType dtype) {
  switch (dtype) {
    case DType::kBool: return sizeof(bool);
    case DType::kUInt8: return 1;
    case DType::kInt32: return 4;
    case DType::kInt64: return 8;
    case DType::kFloat16: return 2;
    case DType::kBFloat16: return 2;
    case DType::kFloat32: return 4;
    case DType::kFloat64: return 8;
    case DType::kString: return sizeof(TString);
  }
  return 0;
}
// "float32", "int64", ...: the names tf.data uses.
std::string_view DTypeName(DType dtype);
Result<DType> ParseDType(std::string_view name);
bool IsFloating(DType dtype);
bool IsInteger(DType dtype);  // uint8, int32, int64 (bool is not an integer)

// The values a bool or integer dtype holds, [min, max] (bool: [0, 1]): for
// checking values from user input before ConvertValue, which would
// truncate them. REQUIRES: dtype is bool or an integer.
struct IntegerBounds {
  int64_t min;
  int64_t max;
  bool Contains(int64_t value) const { return min <= value && value <= max; }
};
IntegerBounds IntegerBoundsOf(DType dtype);

// DTypeOf<T>::value: the DType of a C++ element type.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<Float16> { static constexpr DType value = DType::kFloat16; };
template <> struct DTypeOf<BFloat16> { static constexpr DType value = DType::kBFloat16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<TString> { static constexpr DType value = DType::kString; };

// Calls fn(T{}) with a value of the C++ type of a numeric dtype (not kString).
template <typename Fn>
auto VisitNumericDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kBool: return fn(bool{});
    case DType::kUInt8: return fn(uint8_t{});
    case DType::kInt32: return fn(int32_t{});
    case DType::kInt64: return fn(int64_t{});
    case DType::kFloat16: return fn(Float16{});
    case DType::kBFloat16: return fn(BFloat16{});
    case DType::kFloat32: return fn(float{});
    case DType::kFloat64: return fn(double{});
    case DType::kString: break;
  }
  SLUICE_CHECK(false) << "VisitNumericDType called with " << DTypeName(dtype);
  __builtin_unreachable();
}

// Calls fn(T{}) with a value of the C++ type of any dtype (TString for
// kString).
template <typename Fn>
auto VisitDType(DType dtype, Fn&& fn) {
  if (dtype == DType::kString) return fn(TString{});
  return VisitNumericDType(dtype, fn);
}

// ConvertValue (below) between the non-half numeric types (bool, integers,
// float, double), for the host and CUDA kernels alike (ops/cast.cu).
template <typename To, typename From>
SLUICE_HOST_DEVICE To ConvertNumber(From value) {
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != 0;
  } else if constexpr (std::is_integral_v<To> && std::is_integral_v<From>) {
    return static_cast<To>(value);
  } else if constexpr (std::is_integral_v<To>) {
    const double wide = static_cast<double>(value);
    if (wide != wide) return 0;  // NaN
    // min and max + 1 are exact doubles for every integer type.
    constexpr double kLow = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double kHighExclusive = static_cast<double>(std::numeric_limits<To>::max() / 2 + 1) * 2;
    if (wide <= kLow) return std::numeric_limits<To>::min();
    if (wide >= kHighExclusive) return std::numeric_limits<To>::max();
    return static_cast<To>(wide);
  } else {
    return static_cast<To>(value);
  }
}

// Converts one value between numeric C++ element types, as tf.cast does:
// integer to integer is static_cast (narrowing wraps; int64 stays exact);
// anything to bool is `value != 0`; floating to integer truncates toward
// zero and saturates at the target's range, NaN becoming 0 (so no input is
// undefined behaviour); float16 / bfloat16 go through float, rounding to
// nearest even.
template <typename To, typename From>
To ConvertValue(From value) {
  constexpr bool kFromHalf = std::is_same_v<From, Float16> || std::is_same_v<From, BFloat16>;
  constexpr bool kToHalf = std::is_same_v<To, Float16> || std::is_same_v<To, BFloat16>;
  if constexpr (std::is_same_v<To, From>) {
    return value;
  } else if constexpr (kFromHalf) {
    return ConvertValue<To>(static_cast<float>(value));
  } else if constexpr (kToHalf) {
    return To(static_cast<float>(value));
  } else {
    return ConvertNumber<To>(value);
  }
}

std::ostream& operator<<(std::ostream& out, DType dtype);

}  // namespace sluice

#include "sluice/core/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace sluice {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

float BitsToFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace

// Round-to-nearest-even float32 -> float16, with subnormals, inf and NaN.
Float16::Float16(float value) {
  const uint32_t f = FloatBits(value);
  const uint32_t sign = (f >> 16) & 0x8000u;
  const uint32_t abs = f & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Scale by 2^24 with float arithmetic, which rounds to nearest even.
    const float scaled = BitsToFloat(abs) * 16777216.0f;
    bits = static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(scaled)));
    return;
  }
  const uint32_t mantissa_odd = (abs >> 13) & 1u;
  const uint32_t rounded = abs + 0xfffu + mantissa_odd;
  bits = static_cast<uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

Float16::operator float() const {
  const uint32_t sign = (bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    const float magnitude = static_cast<float>(mantissa) / 16777216.0f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mantissa << 13));
  return BitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

BFloat16::BFloat16(float value) {
  const uint32_t f = FloatBits(value);
  if ((f & 0x7fffffffu) > 0x7f800000u) {  // NaN stays a (quiet) NaN
    bits = static_cast<uint16_t>((f >> 16) | 0x40u);
    return;
  }
  const uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);
  bits = static_cast<uint16_t>((f + rounding) >> 16);
}

BFloat16::operator float() const { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }

std::string_view DTypeName(DType dtype) {
  switch (dtype) {
    case DType::kBool: return "bool";
    case DType::kUInt8: return "uint8";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kString: return "string";
  }
  return "invalid";
}

Result<DType> ParseDType(std::string_view name) {
  for (DType dtype : {DType::kBool, DType::kUInt8, DType::kInt32, DType::kInt64, DType::kFloat16,
                      DType::kBFloat16, DType::kFloat32, DType::kFloat64, DType::kString}) {
    if (DTypeName(dtype) == name) return dtype;
  }
  return InvalidArgumentError("unknown dtype '", name,
                              "' (expected bool, uint8, int32, int64, float16, bfloat16, "
                              "float32, float64 or string)");
}

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 || dtype == DType::kFloat32 ||
         dtype == DType::kFloat64;
}

bool IsInteger(DType dtype) {
  return dtype == DType::kUInt8 || dtype == DType::kInt32 || dtype == DType::kInt64;
}

IntegerBounds IntegerBoundsOf(DType dtype) {
  switch (dtype) {
    case DType::kBool: return {0, 1};
    case DType::kUInt8: return {0, std::numeric_limits<uint8_t>::max()};
    case DType::kInt32: return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    case DType::kInt64: return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    default: break;
  }
  SLUICE_CHECK(false) << "IntegerBoundsOf(" << DTypeName(dtype) << "): not bool or an integer";
  return {0, 0};
}

std::ostream& operator<<(std::ostream& out, DType dtype) { return out << DTypeName(dtype); }

}  // namespace sluice

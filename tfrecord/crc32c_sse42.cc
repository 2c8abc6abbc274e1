// The SSE4.2 CRC-32C. Compiled with -msse4.2 (tfrecord/CMakeLists.txt) and
// only called when the CPU has the instruction (crc32c.cc checks).
#include <nmmintrin.h>

#include <cstring>

#include "sluice/tfrecord/crc32c_internal.h"

namespace sluice::crc32c::internal {

namespace {

// The crc32 instruction has a latency of 3 cycles and a throughput of 1, so
// three independent streams run at once; their registers are then combined
// by appending zeros (ZeroBytesOperator) and xoring, since the register
// update is linear. Long blocks amortise the combine; short and tiny ones
// keep records of about a kilobyte on the fast path.
constexpr size_t kLongStride = 8192;
constexpr size_t kShortStride = 256;
constexpr size_t kTinyStride = 64;

uint64_t Load64(const uint8_t* p) {
  uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// Multiplication by a constant operator is linear in the register, so it is
// four table lookups, one per register byte.
class ConstantMultiplier {
 public:
  explicit ConstantMultiplier(uint32_t op) {
    for (int byte = 0; byte < 4; ++byte) {
      for (uint32_t v = 0; v < 256; ++v) table_[byte][v] = MultiplyModP(op, v << (8 * byte));
    }
  }
  uint32_t operator()(uint32_t reg) const {
    return table_[0][reg & 0xff] ^ table_[1][(reg >> 8) & 0xff] ^ table_[2][(reg >> 16) & 0xff] ^
           table_[3][reg >> 24];
  }

 private:
  uint32_t table_[4][256];
};

// Processes as many blocks of 3 * stride bytes as fit.
template <size_t kStride>
uint32_t UpdateTripleStreams(uint32_t reg, const uint8_t*& data, size_t& size) {
  static const ConstantMultiplier shift(ZeroBytesOperator(kStride));
  while (size >= 3 * kStride) {
    uint64_t a = reg, b = 0, c = 0;
    const uint8_t* p = data;
    for (size_t i = 0; i < kStride; i += 8) {
      a = _mm_crc32_u64(a, Load64(p + i));
      b = _mm_crc32_u64(b, Load64(p + kStride + i));
      c = _mm_crc32_u64(c, Load64(p + 2 * kStride + i));
    }
    reg = shift(static_cast<uint32_t>(a)) ^ static_cast<uint32_t>(b);
    reg = shift(reg) ^ static_cast<uint32_t>(c);
    data += 3 * kStride;
    size -= 3 * kStride;
  }
  return reg;
}

}  // namespace

uint32_t UpdateSse42(uint32_t reg, const uint8_t* data, size_t size) {
  reg = UpdateTripleStreams<kLongStride>(reg, data, size);
  reg = UpdateTripleStreams<kShortStride>(reg, data, size);
  reg = UpdateTripleStreams<kTinyStride>(reg, data, size);
  uint64_t reg64 = reg;
  for (; size >= 8; data += 8, size -= 8) reg64 = _mm_crc32_u64(reg64, Load64(data));
  reg = static_cast<uint32_t>(reg64);
  for (; size > 0; ++data, --size) reg = _mm_crc32_u8(reg, *data);
  return reg;
}

}  // namespace sluice::crc32c::internal

#include "sluice/tfrecord/crc32c.h"

#include <array>
#include <cstring>

#include "sluice/tfrecord/crc32c_internal.h"

namespace sluice::crc32c {
namespace internal {

namespace {

// Slicing-by-8: table[k][b] is the register update for byte b followed by k
// zero bytes, so eight bytes are folded in with eight lookups.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables tables{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t reg = b;
    for (int bit = 0; bit < 8; ++bit) reg = (reg >> 1) ^ (reg & 1 ? kPolynomial : 0);
    tables[0][b] = reg;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      const uint32_t prev = tables[k - 1][b];
      tables[k][b] = (prev >> 8) ^ tables[0][prev & 0xff];
    }
  }
  return tables;
}
constexpr Tables kTables = MakeTables();

}  // namespace

uint32_t UpdatePortable(uint32_t reg, const uint8_t* data, size_t size) {
  while (size >= 8) {
    uint64_t word;
    std::memcpy(&word, data, 8);  // little-endian host (x86-64, aarch64)
    word ^= reg;
    reg = kTables[7][word & 0xff] ^ kTables[6][(word >> 8) & 0xff] ^
          kTables[5][(word >> 16) & 0xff] ^ kTables[4][(word >> 24) & 0xff] ^
          kTables[3][(word >> 32) & 0xff] ^ kTables[2][(word >> 40) & 0xff] ^
          kTables[1][(word >> 48) & 0xff] ^ kTables[0][word >> 56];
    data += 8;
    size -= 8;
  }
  while (size-- > 0) reg = (reg >> 8) ^ kTables[0][(reg ^ *data++) & 0xff];
  return reg;
}

uint32_t MultiplyModP(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t m = 1u << 31; m != 0; m >>= 1) {
    if (a & m) product ^= b;
    b = (b >> 1) ^ (b & 1 ? kPolynomial : 0);
  }
  return product;
}

uint32_t ZeroBytesOperator(size_t bytes) {
  // Square-and-multiply over x^(2^k): start from x^8 (one zero byte).
  uint32_t result = 1u << 31;      // x^0
  uint32_t power = 1u << (31 - 8);  // x^8
  for (; bytes != 0; bytes >>= 1) {
    if (bytes & 1) result = MultiplyModP(result, power);
    power = MultiplyModP(power, power);
  }
  return result;
}

}  // namespace internal

namespace {

bool DetectHardware() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

const bool kHardware = DetectHardware();

}  // namespace

bool HardwareAvailable() { return kHardware; }

uint32_t ExtendPortable(uint32_t crc, const void* data, size_t size) {
  return ~internal::UpdatePortable(~crc, static_cast<const uint8_t*>(data), size);
}

uint32_t ExtendHardware(uint32_t crc, const void* data, size_t size) {
  return ~internal::UpdateSse42(~crc, static_cast<const uint8_t*>(data), size);
}

uint32_t Extend(uint32_t crc, const void* data, size_t size) {
  return kHardware ? ExtendHardware(crc, data, size) : ExtendPortable(crc, data, size);
}

}  // namespace sluice::crc32c

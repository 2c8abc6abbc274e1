// Shared by the portable (crc32c.cc) and SSE4.2 (crc32c_sse42.cc) CRC-32C
// implementations: GF(2) arithmetic modulo the CRC polynomial, used to
// combine the CRCs of independently computed streams.
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::crc32c::internal {

inline constexpr uint32_t kPolynomial = 0x82f63b78u;  // reflected

// a * b modulo the polynomial, both in the reflected bit order of the CRC
// register (bit 31 is x^0).
uint32_t MultiplyModP(uint32_t a, uint32_t b);
// x^(8 * bytes) modulo the polynomial: multiplying a CRC register by it
// appends `bytes` zero bytes to the message it covers.
uint32_t ZeroBytesOperator(size_t bytes);

// The raw register update over `size` bytes (no pre/post inversion).
uint32_t UpdatePortable(uint32_t reg, const uint8_t* data, size_t size);
uint32_t UpdateSse42(uint32_t reg, const uint8_t* data, size_t size);

}  // namespace sluice::crc32c::internal

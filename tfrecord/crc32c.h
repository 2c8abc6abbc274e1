// CRC-32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and
// final xor 0xFFFFFFFF; the check value of "123456789" is 0xE3069283), the
// checksum of the TFRecord format (tfrecord/record_format.h).
//
// Extend uses the SSE4.2 crc32 instruction when the CPU has it (three
// interleaved streams, so the instruction's 3-cycle latency is hidden) and a
// portable slicing-by-8 table otherwise; the choice is made once, at run time.
//
// TFRecord stores CRCs masked: storing the CRC of data that itself contains
// CRCs (a TFRecord file inside a TFRecord record) is problematic, so the
// stored value is rotated right by 15 bits and offset by a constant.
// Thread safety: all functions are pure and may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::crc32c {

// The CRC of A + data, given crc = the CRC of some prefix A (0 for none).
uint32_t Extend(uint32_t crc, const void* data, size_t size);
inline uint32_t Value(const void* data, size_t size) { return Extend(0, data, size); }

// The portable and hardware implementations, for tests and benchmarks.
uint32_t ExtendPortable(uint32_t crc, const void* data, size_t size);
// REQUIRES: HardwareAvailable().
uint32_t ExtendHardware(uint32_t crc, const void* data, size_t size);
bool HardwareAvailable();

inline constexpr uint32_t kMaskDelta = 0xa282ead8u;

inline uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }
inline uint32_t Unmask(uint32_t masked) {
  const uint32_t rotated = masked - kMaskDelta;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace sluice::crc32c

// The counter-based generator behind dropout's mask, shared by the CPU
// kernel (dropout.cc) and the CUDA kernel (dropout.cu) so that one seed
// gives one mask on either device: element i's uniform number depends on
// (seed, i) only, never on how threads split the work.
// UniformIndex and StandardNormal turn its uniform numbers into an index and
// a normal value (the random functions' places and their Beta and normal
// draws, dataset/image_functions.h).
// Thread safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>

#include "sluice/core/host_device.h"

namespace sluice {

// SplitMix64's output function: a bijective mix of all 64 bits.
SLUICE_HOST_DEVICE inline uint64_t Mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A uniform double in [0, 1) for element `index`: the index-th output of a
// SplitMix64 generator whose state starts at seed_state = Mix64(seed);
// mixing the seed first keeps nearby seeds' streams unrelated.
SLUICE_HOST_DEVICE inline double UniformAt(uint64_t seed_state, int64_t index) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const uint64_t bits = Mix64(seed_state + (static_cast<uint64_t>(index) + 1) * kGolden);
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// A uniform index in [0, count) from a uniform double u in [0, 1):
// floor(u * count), kept below count where the product rounds up to it.
// REQUIRES: count > 0.
inline int64_t UniformIndex(double u, int64_t count) {
  const auto index = static_cast<int64_t>(u * static_cast<double>(count));
  return index < count ? index : count - 1;
}

// A standard normal value from two uniform doubles in [0, 1), by Box-Muller
// (1 - u1 is in (0, 1], so the logarithm is finite).
inline double StandardNormal(double u1, double u2) {
  return std::sqrt(-2 * std::log1p(-u1)) * std::cos(2 * M_PI * u2);
}

}  // namespace sluice

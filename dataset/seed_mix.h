// Seeds for the random ops (shuffle, random, sample_from_datasets): the
// splitmix64 finaliser over (seed, index), which spreads consecutive
// indices into unrelated 64-bit values, and the seed a dataset picks when
// the user gives none.
// Thread safety: pure functions (RandomSeed reads std::random_device).
#pragma once

#include <cstdint>

namespace sluice {

// splitmix64's output for the index-th step from `seed`.
inline uint64_t MixSeed(uint64_t seed, uint64_t index) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// 64 bits from std::random_device.
uint64_t RandomSeed();

}  // namespace sluice

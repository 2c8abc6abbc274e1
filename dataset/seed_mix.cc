#include "sluice/dataset/seed_mix.h"

#include <random>

namespace sluice {

uint64_t RandomSeed() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

}  // namespace sluice

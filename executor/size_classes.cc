#include "sluice/executor/size_classes.h"

#include <bit>

namespace sluice {

size_t SizeClass(size_t bytes) {
  if (bytes <= kLargeSizeFrom) {
    const size_t steps = bytes == 0 ? 1 : (bytes + kSmallSizeStep - 1) / kSmallSizeStep;
    return steps * kSmallSizeStep;
  }
  // Quarters of the power of two at or below `bytes`.
  const size_t quarter = std::bit_floor(bytes) / 4;
  return (bytes + quarter - 1) / quarter * quarter;
}

}  // namespace sluice

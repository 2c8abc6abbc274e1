#include "dataset/prefetch_autotuner.h"

namespace sluice {

void PrefetchAutotuner::RecordConsumerStarved(size_t element_bytes) {
  if (!producer_throttled_) return;
  const int64_t doubled = buffer_limit_ * 2;
  if (doubled > max_elements_ || static_cast<size_t>(doubled) * element_bytes > max_bytes_) return;
  buffer_limit_ = doubled;
  producer_throttled_ = false;
}

}  // namespace sluice

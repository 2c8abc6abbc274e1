#include "dataset/prefetch_autotuner.h"

namespace sluice {

void PrefetchAutotuner::RecordConsumption(int64_t buffered, size_t element_bytes) {
  switch (mode_) {
    case Mode::kUpswing:
      if (buffered >= buffer_limit_) mode_ = Mode::kDownswing;
      return;
    case Mode::kDownswing:
      if (buffered > 0) return;
      const int64_t doubled = buffer_limit_ * 2;
      if (doubled > max_elements_ || static_cast<size_t>(doubled) * element_bytes > max_bytes_) return;
      buffer_limit_ = doubled;
      mode_ = Mode::kUpswing;
      return;
  }
}

}  // namespace sluice

// PrefetchAutotuner: the buffer limit of a prefetch with buffer_size =
// kAutotune, as tf.data's legacy prefetch autotuner sets it.
//
// It starts at one element in "upswing". When the buffer reaches the limit
// it turns to "downswing"; if a consumer then finds the buffer empty, the
// producer could not keep up with the bursts, so the limit doubles (up to the
// caps) and it turns to upswing again. The limit never shrinks. The
// pipeline-wide autotuner (later issue) replaces the caps with a RAM budget.
// Thread safety: none; the prefetch iterator calls it under its lock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice {

class PrefetchAutotuner {
 public:
  // Caps: at most max_elements buffered, and at most max_bytes given the
  // element size seen so far.
  PrefetchAutotuner(int64_t max_elements, size_t max_bytes)
      : max_elements_(max_elements), max_bytes_(max_bytes) {}

  int64_t buffer_limit() const { return buffer_limit_; }

  // Called by the consumer as it takes an element, with the number of
  // elements buffered before it took one and that element's size in bytes.
  void RecordConsumption(int64_t buffered, size_t element_bytes);

 private:
  enum class Mode { kUpswing, kDownswing };

  const int64_t max_elements_;
  const size_t max_bytes_;
  int64_t buffer_limit_ = 1;
  Mode mode_ = Mode::kUpswing;
};

}  // namespace sluice

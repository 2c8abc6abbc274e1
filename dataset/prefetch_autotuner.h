// PrefetchAutotuner: the buffer limit of a prefetch with buffer_size =
// kAutotune.
//
// The buffer exists to let the producer run ahead through bursts. The limit
// starts at one element and doubles (within the caps) whenever the consumer
// starves on an empty buffer after the producer was held back by a full one
// since the last doubling: a larger buffer would have let it run ahead. When
// the producer is never held back, the limit stays. It never shrinks. (tf.data's
// legacy autotuner grows on empty-after-full too, in upswing/downswing
// phases; this is the same signal without the phases.) The pipeline-wide
// autotuner (a later issue) replaces the caps with a RAM budget.
// Thread safety: none; the prefetch iterator calls it under its lock.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice {

class PrefetchAutotuner {
 public:
  // Caps: at most max_elements buffered, and at most max_bytes at the
  // element size the consumer reports.
  PrefetchAutotuner(int64_t max_elements, size_t max_bytes)
      : max_elements_(max_elements), max_bytes_(max_bytes) {}

  int64_t buffer_limit() const { return buffer_limit_; }

  // The producer found the buffer at its limit and waits.
  void RecordProducerThrottled() { producer_throttled_ = true; }
  // The consumer found the buffer empty and waits; `element_bytes` is the
  // size of the elements it has been taking.
  void RecordConsumerStarved(size_t element_bytes);

 private:
  const int64_t max_elements_;
  const size_t max_bytes_;
  int64_t buffer_limit_ = 1;
  bool producer_throttled_ = false;  // since the last doubling
};

}  // namespace sluice

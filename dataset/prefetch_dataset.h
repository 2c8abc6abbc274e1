// prefetch: a background producer thread fills a buffer of up to buffer_size
// elements ahead of the consumer. buffer_size 0 reads the input
// synchronously (no thread). Errors are buffered with their element and
// arrive in order. The producer starts on the first GetNext and is stopped
// and joined when the iterator is destroyed, even mid-stream.
// Buffered elements are charged to the traversal's RAM budget
// (dataset/ram_budget.h): the producer waits while the budget is full and
// the consumer still has elements to take.
// Saving an iterator (dataset/iterator_state.h) joins the producer after the
// element it is reading, saves the buffered elements and errors, and lets
// the next GetNext start a new producer.
#pragma once

#include "dataset/dataset.h"

namespace sluice {

struct PrefetchOptions {
  // >= 0; kAutotune starts at 1 and doubles while the consumer finds the
  // buffer empty (dataset/prefetch_autotuner.h), up to 1024 elements and
  // the RAM budget.
  int64_t buffer_size = kAutotune;
};

Result<DatasetPtr> MakePrefetchDataset(DatasetPtr input, PrefetchOptions options);

}  // namespace sluice

// prefetch: a background producer thread fills a buffer of up to buffer_size
// elements ahead of the consumer. buffer_size 0 reads the input
// synchronously (no thread). Errors are buffered with their element and
// arrive in order. The producer starts on the first GetNext and is stopped
// and joined when the iterator is destroyed, even mid-stream.
// Buffered elements are charged to the traversal's RAM budget
// (dataset/ram_budget.h) once made: the producer waits with its element
// while the budget is full and the consumer still has elements to take.
// Saving an iterator (dataset/iterator_state.h) joins the producer after the
// element it is reading, saves the buffered elements and errors, and lets
// the next GetNext start a new producer.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct PrefetchOptions {
  // >= 0; kAutotune: the autotuner's (dataset/autotuner.h), from the
  // producer's and the consumer's measured time per element: 0 (the
  // consumer reads the input inline) when they have too little work to
  // overlap, else the M/M/1/K model's size, up to 1024 elements and within
  // the RAM budget. Starts at 1.
  int64_t buffer_size = kAutotune;
};

Result<DatasetPtr> MakePrefetchDataset(DatasetPtr input, PrefetchOptions options);

// The prefetch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> PrefetchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

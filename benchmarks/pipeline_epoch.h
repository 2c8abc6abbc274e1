// Timing one epoch of a pipeline whose elements are batches, for the
// pipeline benchmarks.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "bench_util.h"
#include "sluice/dataset/pipeline.h"

namespace sluice {

// Reads one epoch and returns its seconds; ends the benchmark on an error or
// when the batches' rows do not add up to `expected_elements` (a benchmark bug).
inline double TimeEpoch(const Pipeline& pipeline, int64_t expected_elements) {
  const auto start = std::chrono::steady_clock::now();
  auto it = pipeline.MakeIterator();
  Die(it, "MakeIterator");
  int64_t elements = 0;
  while (true) {
    auto next = (*it)->GetNext();
    Die(next, "GetNext");
    if (!next->has_value()) break;
    elements += (**next)[0].dim(0);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (elements != expected_elements) {
    std::fprintf(stderr, "error: read %lld elements, expected %lld\n", static_cast<long long>(elements),
                 static_cast<long long>(expected_elements));
    std::exit(1);
  }
  return seconds;
}

}  // namespace sluice

// ParallelFor: splits [0, n) into chunks of at least `grain` indices and runs
// fn(begin, end) on oneTBB's workers; small ranges run inline, where a task
// would cost more than the work.
//
// TSan builds link an instrumented oneTBB (scripts/build_tsan_tbb.sh), so
// kernels run in parallel there too.
// Thread safety: fn runs concurrently on disjoint ranges.
#pragma once

#include <cstdint>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace sluice {

// Below this many simple element operations a kernel runs single-threaded.
inline constexpr int64_t kParallelGrain = 1 << 15;

// The grain for a loop over rows of `row_elements` elements each, so that a
// chunk holds about kParallelGrain elements.
inline int64_t RowGrain(int64_t row_elements) {
  return row_elements >= kParallelGrain ? 1 : kParallelGrain / (row_elements > 0 ? row_elements : 1);
}

template <typename Fn>
void ParallelFor(int64_t n, int64_t grain, Fn&& fn) {
  if (n <= grain) {
    if (n > 0) fn(int64_t{0}, n);
    return;
  }
  tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, grain),
                    [&](const tbb::blocked_range<int64_t>& range) { fn(range.begin(), range.end()); });
}

}  // namespace sluice

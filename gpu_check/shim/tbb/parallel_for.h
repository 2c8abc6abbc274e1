// Stand-in for oneTBB's parallel_for in the toolkit-only GPU check: the CPU
// kernels there are parity references, so they run serially.
#pragma once

#include "tbb/blocked_range.h"

namespace tbb {

template <typename Range, typename Body>
void parallel_for(const Range& range, const Body& body) {
  body(range);
}

}  // namespace tbb

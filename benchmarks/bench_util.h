// What the training benchmarks share: ending on an error, and medians.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sluice/core/status.h"

namespace sluice {

// Ends the benchmark with `what` and the error when `status` is one.
inline void Die(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "error in %s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}
template <typename T>
void Die(const Result<T>& result, const char* what) {
  Die(result.status(), what);
}

inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace sluice

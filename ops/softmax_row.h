// Softmax of one row, shared by the softmax and cross-entropy kernels: both
// subtract the row's maximum before exponentiating, so logits of any size
// give finite results.
// Thread safety: pure functions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sluice {

// max(x) and log(sum(exp(x - max(x)))) of the n > 0 values x.
template <typename T>
struct RowLogSumExp {
  T max;
  T log_sum;  // log(sum(exp(x - max)))
};

template <typename T>
RowLogSumExp<T> ComputeRowLogSumExp(const T* x, int64_t n) {
  T max = x[0];
  for (int64_t i = 1; i < n; ++i) max = std::max(max, x[i]);
  T sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - max);
  return {max, std::log(sum)};
}

// out = softmax(x) over n > 0 values (out may alias nothing).
template <typename T>
void SoftmaxRow(const T* x, int64_t n, T* out) {
  T max = x[0];
  for (int64_t i = 1; i < n; ++i) max = std::max(max, x[i]);
  T sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += out[i] = std::exp(x[i] - max);
  const T scale = T(1) / sum;
  for (int64_t i = 0; i < n; ++i) out[i] *= scale;
}

}  // namespace sluice

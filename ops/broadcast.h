// Broadcasting as NumPy and TensorFlow define it: shapes align at their last
// dimension; each pair of dimensions must be equal or one of them 1; the
// result takes the larger. The iteration helper walks an output shape with
// per-operand strides (0 along broadcast dimensions).
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "sluice/core/shape.h"
#include "sluice/core/status.h"

namespace sluice {

// The broadcast shape of a and b, or InvalidArgument naming the op and both
// shapes.
Result<Shape> BroadcastShapes(std::string_view op, const Shape& a, const Shape& b);

// Element strides of a tensor of shape `from` read as if it had shape `to`
// (REQUIRES: `from` broadcasts to `to`): one per dim of `to`, 0 where `from`
// is broadcast.
std::array<int64_t, kMaxRank> BroadcastStrides(const Shape& from, const Shape& to);

// Calls fn(out_offset, a_offset, b_offset, count, a_step, b_step) for each
// innermost row of `out` (row-major), where a_step / b_step are the operands'
// strides along the last dimension (0 or 1 when contiguous).
template <typename Fn>
void ForEachBroadcastRow(const Shape& out, const std::array<int64_t, kMaxRank>& a_strides,
                         const std::array<int64_t, kMaxRank>& b_strides, Fn&& fn) {
  const int rank = out.rank();
  if (rank == 0) {
    fn(int64_t{0}, int64_t{0}, int64_t{0}, int64_t{1}, int64_t{0}, int64_t{0});
    return;
  }
  if (out.NumElements() == 0) return;
  const int64_t inner = out.dim(rank - 1);
  std::array<int64_t, kMaxRank> index{};
  int64_t a = 0, b = 0, o = 0;
  while (true) {
    fn(o, a, b, inner, a_strides[rank - 1], b_strides[rank - 1]);
    o += inner;
    int d = rank - 2;
    for (; d >= 0; --d) {
      ++index[d];
      a += a_strides[d];
      b += b_strides[d];
      if (index[d] < out.dim(d)) break;
      a -= a_strides[d] * out.dim(d);
      b -= b_strides[d] * out.dim(d);
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace sluice

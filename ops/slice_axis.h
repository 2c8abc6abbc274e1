// SliceAxis: the indices [begin, end) of one axis of a tensor, as Python's
// x[..., begin:end, ...] along that axis: a negative axis, begin or end
// counts from the end; begin and end are then clamped to [0, dim], and an
// end at or before begin gives an empty slice. Any dtype (strings are
// copied); rank >= 1.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <optional>

#include "sluice/core/tensor.h"

namespace sluice {

// The [begin, end) that SliceAxis takes of an axis of size `dim`.
struct SliceBounds {
  int64_t begin;
  int64_t end;
};
SliceBounds ResolveSliceBounds(int64_t dim, int64_t begin, std::optional<int64_t> end);

// InvalidArgument when x is a scalar or the axis is outside [-rank, rank).
Result<Tensor> SliceAxis(const Tensor& x, int64_t axis, int64_t begin, std::optional<int64_t> end);

}  // namespace sluice

// Row lengths: the layout of a batch of variable-length rows as values end
// to end plus each row's count (`<component>/row_lengths`, as the text
// splitters and parse_example's VarLen features produce). Lengths come from
// elements, so they are checked before values are indexed by them.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

// OK when `row_lengths` is an int64 vector of lengths >= 0 that add up to
// `values` exactly; InvalidArgument naming `op` and the first row that
// doesn't fit otherwise.
Status CheckRowLengths(std::string_view op, const Tensor& row_lengths, int64_t values);

// The lengths of the outer rows once each is flattened: outer row j holds
// outer[j] inner rows, each inner[k] values long, so the result's j-th
// length is the sum of its inner rows' lengths (RaggedTensor.merge_dims of
// the last two dims). Both are checked as CheckRowLengths does: outer
// against inner's size, inner against `values`.
Result<Tensor> MergeRowLengths(std::string_view op, const Tensor& outer, const Tensor& inner, int64_t values);

}  // namespace sluice

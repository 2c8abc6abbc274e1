// BufferedBytes: what an element or an error waiting in an op's buffer
// (prefetch's, a parallel map's or batch's groups, an interleave's streams,
// window's, group_by_window's groups, bucket_by_sequence_length's buckets)
// is charged to the traversal's RAM budget (dataset/ram_budget.h).
//
// An element is charged its tensors' bytes and, beside them, what its entry
// in the buffer and each of its tensors' handles take; an error is charged
// its message and the entry. So a buffer's length is bounded by the budget
// even when its elements are empty or are errors, however many elements a
// spec lets the op hold (a window of 2^40, a prefetch of 2^40).
#pragma once

#include <cstdint>

#include "sluice/core/element.h"
#include "sluice/core/status.h"

namespace sluice {

// What one buffer entry takes beside its tensors: the entry (an element or
// a status, as a Result) and the container's bookkeeping.
inline constexpr int64_t kBufferEntryBytes = sizeof(Result<Element>) + 32;
// What one tensor handle of a buffered element takes: the Tensor and its
// share of a buffer's header.
inline constexpr int64_t kBufferTensorBytes = sizeof(Tensor) + 32;

inline int64_t BufferedBytes(const Element& element) {
  return static_cast<int64_t>(element.NumBytes()) + kBufferEntryBytes +
         static_cast<int64_t>(element.size()) * kBufferTensorBytes;
}

inline int64_t BufferedBytes(const Status& error) {
  return kBufferEntryBytes + static_cast<int64_t>(error.message().size());
}

inline int64_t BufferedBytes(const Result<Element>& result) {
  return result.ok() ? BufferedBytes(*result) : BufferedBytes(result.status());
}

}  // namespace sluice

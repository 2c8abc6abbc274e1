// Checks shared by the ops' shape functions, each returning InvalidArgument
// with the op's name, the input's position and expected vs found.
// Thread safety: pure functions.
#pragma once

#include <span>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

// float32 or float64.
Status CheckFloating(std::string_view op, std::span<const Tensor> inputs, size_t index);
// inputs[index] has the dtype of inputs[0].
Status CheckSameDType(std::string_view op, std::span<const Tensor> inputs, size_t index);
// inputs[index] has the shape of inputs[0].
Status CheckSameShape(std::string_view op, std::span<const Tensor> inputs, size_t index);
Status CheckRank(std::string_view op, std::span<const Tensor> inputs, size_t index, int rank);
// int32 or int64 (indices, labels).
Status CheckIndexDType(std::string_view op, std::span<const Tensor> inputs, size_t index);

// InvalidArgument for embedding id `id` at flat position `position` of ids
// of shape `ids_shape`, outside the table's rows [0, rows).
Status IdOutOfRangeError(std::string_view op, const Shape& ids_shape, int64_t position, int64_t id, int64_t rows);

// Reads an int32 or int64 index tensor's value i as int64.
inline int64_t IndexAt(const Tensor& indices, int64_t i) {
  return indices.dtype() == DType::kInt32 ? indices.data<int32_t>()[i] : indices.data<int64_t>()[i];
}

// Calls fn(T{}) for float32 or float64. REQUIRES: dtype is one of them.
template <typename Fn>
auto VisitFloating(DType dtype, Fn&& fn) {
  if (dtype == DType::kFloat64) return fn(double{});
  return fn(float{});
}

}  // namespace sluice

#include "sluice/ops/op_checks.h"

#include <array>

namespace sluice {

Status CheckFloating(std::string_view op, std::span<const Tensor> inputs, size_t index) {
  const DType dtype = inputs[index].dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    return InvalidArgumentError(op, ": input ", index, " must be float32 or float64, got ", dtype);
  }
  return OkStatus();
}

Status CheckSameDType(std::string_view op, std::span<const Tensor> inputs, size_t index) {
  if (inputs[index].dtype() != inputs[0].dtype()) {
    return InvalidArgumentError(op, ": input ", index, " has dtype ", inputs[index].dtype(),
                                " but input 0 has ", inputs[0].dtype());
  }
  return OkStatus();
}

Status CheckSameShape(std::string_view op, std::span<const Tensor> inputs, size_t index) {
  if (inputs[index].shape() != inputs[0].shape()) {
    return InvalidArgumentError(op, ": input ", index, " has shape ", inputs[index].shape(),
                                " but input 0 has ", inputs[0].shape());
  }
  return OkStatus();
}

Status CheckRank(std::string_view op, std::span<const Tensor> inputs, size_t index, int rank) {
  if (inputs[index].rank() != rank) {
    return InvalidArgumentError(op, ": input ", index, " must have rank ", rank, ", got shape ",
                                inputs[index].shape());
  }
  return OkStatus();
}

Status CheckIndexDType(std::string_view op, std::span<const Tensor> inputs, size_t index) {
  const DType dtype = inputs[index].dtype();
  if (dtype != DType::kInt32 && dtype != DType::kInt64) {
    return InvalidArgumentError(op, ": input ", index, " must be int32 or int64, got ", dtype);
  }
  return OkStatus();
}

Status IdOutOfRangeError(std::string_view op, const Shape& ids_shape, int64_t position, int64_t id, int64_t rows) {
  std::array<int64_t, kMaxRank> index{};
  for (int64_t d = ids_shape.rank() - 1, rest = position; d >= 0; --d) {
    index[d] = rest % ids_shape.dim(d);
    rest /= ids_shape.dim(d);
  }
  return InvalidArgumentError(op, ": id ", id, " at position ", Shape(std::span<const int64_t>(index.data(), ids_shape.rank())),
                              " of input 1 is outside the table's rows [0, ", rows, ")");
}

}  // namespace sluice

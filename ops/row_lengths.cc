#include "sluice/ops/row_lengths.h"

namespace sluice {

Status CheckRowLengths(std::string_view op, const Tensor& row_lengths, int64_t values) {
  if (row_lengths.dtype() != DType::kInt64 || row_lengths.rank() != 1) {
    return InvalidArgumentError(op, ": row lengths must be an int64 vector, got ", row_lengths.dtype(),
                                row_lengths.shape());
  }
  const int64_t* lengths = row_lengths.data<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < row_lengths.dim(0); ++i) {
    if (lengths[i] < 0 || lengths[i] > values - total) {
      return InvalidArgumentError(op, ": row ", i, " has length ", lengths[i], ", but the rows before it hold ",
                                  total, " of the ", values, " values");
    }
    total += lengths[i];
  }
  if (total != values) {
    return InvalidArgumentError(op, ": the row lengths add up to ", total, ", but there are ", values, " values");
  }
  return OkStatus();
}

Result<Tensor> MergeRowLengths(std::string_view op, const Tensor& outer, const Tensor& inner, int64_t values) {
  SLUICE_RETURN_IF_ERROR(CheckRowLengths(op, inner, values));
  SLUICE_RETURN_IF_ERROR(CheckRowLengths(op, outer, inner.dim(0)));
  Tensor merged = Tensor::AllocateUninitialized(DType::kInt64, outer.shape());
  const int64_t* rows = outer.data<int64_t>();
  const int64_t* lengths = inner.data<int64_t>();
  int64_t* out = merged.mutable_data<int64_t>();
  for (int64_t j = 0, k = 0; j < outer.dim(0); ++j) {
    int64_t sum = 0;  // at most `values`: the inner lengths were checked
    for (const int64_t end = k + rows[j]; k < end; ++k) sum += lengths[k];
    out[j] = sum;
  }
  return merged;
}

}  // namespace sluice

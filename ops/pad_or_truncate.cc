#include "sluice/ops/pad_or_truncate.h"

#include <algorithm>
#include <cstring>

#include "sluice/ops/row_lengths.h"

namespace sluice {

namespace {

Status CheckArguments(const Tensor& values, int64_t length) {
  if (values.rank() != 1) {
    return InvalidArgumentError("pad_or_truncate: expected a vector, got ", values.dtype(), values.shape());
  }
  if (length < 0) return InvalidArgumentError("pad_or_truncate: length must be >= 0, got ", length);
  return OkStatus();
}

// Row `row` of `out` ([rows, length]): the `count` values of `values` from
// `begin`, cut or padded to `length`.
void FillRow(const Tensor& values, int64_t begin, int64_t count, int64_t row, int64_t length, double pad_value,
             PaddedValues& out) {
  const int64_t kept = std::min(count, length);
  std::fill_n(out.mask.mutable_data<int64_t>() + row * length, kept, int64_t{1});
  if (values.dtype() == DType::kString) {
    std::copy_n(values.data<TString>() + begin, kept, out.values.mutable_data<TString>() + row * length);
    return;
  }
  VisitNumericDType(values.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* dst = out.values.mutable_data<T>() + row * length;
    std::memcpy(dst, values.data<T>() + begin, static_cast<size_t>(kept) * sizeof(T));
    std::fill(dst + kept, dst + length, static_cast<T>(pad_value));
  });
}

}  // namespace

Result<PaddedValues> PadOrTruncate(const Tensor& values, int64_t length, double pad_value) {
  SLUICE_RETURN_IF_ERROR(CheckArguments(values, length));
  PaddedValues out{.values = Tensor::Allocate(values.dtype(), Shape{length}),
                   .mask = Tensor::Allocate(DType::kInt64, Shape{length})};
  FillRow(values, 0, values.dim(0), 0, length, pad_value, out);
  return out;
}

Result<PaddedValues> PadOrTruncateRows(const Tensor& values, const Tensor& row_lengths, int64_t length,
                                       double pad_value) {
  SLUICE_RETURN_IF_ERROR(CheckArguments(values, length));
  SLUICE_RETURN_IF_ERROR(CheckRowLengths("pad_or_truncate", row_lengths, values.dim(0)));
  const int64_t rows = row_lengths.dim(0);
  const int64_t* lengths = row_lengths.data<int64_t>();
  SLUICE_ASSIGN_OR_RETURN(Tensor padded, Tensor::TryAllocate(values.dtype(), Shape{rows, length}));
  SLUICE_ASSIGN_OR_RETURN(Tensor mask, Tensor::TryAllocate(DType::kInt64, Shape{rows, length}));
  PaddedValues out{.values = std::move(padded), .mask = std::move(mask)};
  for (int64_t i = 0, begin = 0; i < rows; begin += lengths[i], ++i) {
    FillRow(values, begin, lengths[i], i, length, pad_value, out);
  }
  return out;
}

}  // namespace sluice

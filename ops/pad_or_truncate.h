// PadOrTruncate: a variable-length vector to exactly `length` values, as
// tf.text's pad_model_inputs does for one row: the first `length` values,
// then `pad_value` up to `length`; and the mask, int64 1 for each value kept
// and 0 for each pad. Numeric dtypes are padded with pad_value converted to
// the dtype; strings with "".
// Errors: InvalidArgument for an input that is not a vector, or length < 0.
// Thread safety: a pure function; the outputs are fresh tensors.
#pragma once

#include <cstdint>

#include "sluice/core/tensor.h"

namespace sluice {

struct PaddedValues {
  Tensor values;  // [length], the input's dtype
  Tensor mask;    // int64 [length]
};

Result<PaddedValues> PadOrTruncate(const Tensor& values, int64_t length, double pad_value);

}  // namespace sluice

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
  Tensor values;  // [length] (rows: [N, length]), the input's dtype
  Tensor mask;    // int64, values' shape
};

Result<PaddedValues> PadOrTruncate(const Tensor& values, int64_t length, double pad_value);

// The same for each row of a batch laid out as values + row lengths (the
// splitters' layout, text_functions.h): row i is the next row_lengths[i]
// values. `values` and `mask` become [N, length], N = row_lengths' size, as
// tf.text's pad_model_inputs pads a ragged batch.
// Errors: InvalidArgument when row_lengths is not an int64 vector, holds a
// negative length, or its sum is not values' length; ResourceExhausted when
// [N, length] does not fit in the host's memory.
Result<PaddedValues> PadOrTruncateRows(const Tensor& values, const Tensor& row_lengths, int64_t length,
                                       double pad_value);

}  // namespace sluice

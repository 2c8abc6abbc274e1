// MaskedMean: the mean over the time axis of a padded sequence batch,
// counting only real steps: values [N, T, D] float, mask [N, T] of the same
// float dtype (1 for a real step, 0 for padding) -> [N, D]. A row with no
// real step gives zeros. Used to pool embeddings of padded_batch output.
// The mask's values act as weights, sum_t(m v) / sum_t(m); steps whose mask
// is 0 are never read, so padding (even NaN) cannot leak into the result.
// Gradient with respect to values only: the mask is data.
// Thread safety: a pure function.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> MaskedMean(const Tensor& values, const Tensor& mask);

class OpRegistry;
void RegisterMaskedMeanOp(OpRegistry& registry);

}  // namespace sluice

// MaskedMean: the mean over the time axis of a padded sequence batch,
// counting only real steps: values [N, T, D] float, mask [N, T] of the same
// float dtype (1 for a real step, 0 for padding) -> [N, D]. A row with no
// real step gives zeros. Used to pool embeddings of padded_batch output.
// Gradient with respect to values only.
// Thread safety: a pure function.
#pragma once

#include "core/tensor.h"

namespace sluice {

Result<Tensor> MaskedMean(const Tensor& values, const Tensor& mask);

class OpRegistry;
void RegisterMaskedMeanOp(OpRegistry& registry);

}  // namespace sluice

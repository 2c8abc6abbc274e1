// EmbeddingLookup: rows of a [V, D] float table gathered by int32/int64 ids
// of any shape S, giving S + [D], as tf.nn.embedding_lookup. An id outside
// [0, V) is InvalidArgument naming its position and value. The gradient with
// respect to the table is dense [V, D]: each output row's gradient added
// (scatter-add) into the row it came from; ids get no gradient.
// Thread safety: a pure function.
#pragma once

#include "sluice/core/tensor.h"

namespace sluice {

Result<Tensor> EmbeddingLookup(const Tensor& table, const Tensor& ids);

class OpRegistry;
void RegisterEmbeddingLookupOp(OpRegistry& registry);

}  // namespace sluice

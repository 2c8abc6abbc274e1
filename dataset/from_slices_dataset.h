// from_slices: one element per index along dimension 0 of the given
// components (tf.data's from_tensor_slices). Components may be named
// ({"x", x}, {"y", y}) or positional (empty names); all must be at least
// 1-dimensional and agree in dimension 0.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct NamedTensor {
  std::string name;  // empty for a positional component
  Tensor tensor;
};

Result<DatasetPtr> MakeFromSlicesDataset(std::vector<NamedTensor> components);

// The from_slices node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> FromSlicesDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

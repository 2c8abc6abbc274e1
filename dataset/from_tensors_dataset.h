// from_tensors: exactly one element, made of the given components.
#pragma once

#include "sluice/dataset/from_slices_dataset.h"

namespace sluice {

Result<DatasetPtr> MakeFromTensorsDataset(std::vector<NamedTensor> components);

// The from_tensors node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> FromTensorsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

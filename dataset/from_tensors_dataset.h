// from_tensors: exactly one element, made of the given components.
#pragma once

#include "sluice/dataset/from_slices_dataset.h"

namespace sluice {

Result<DatasetPtr> MakeFromTensorsDataset(std::vector<NamedTensor> components);

}  // namespace sluice

// zip: elements whose components are those of the inputs' elements side by
// side, as long as the shortest input.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeZipDataset(std::vector<DatasetPtr> inputs);

}  // namespace sluice

// zip: elements whose components are those of the inputs' elements side by
// side, as long as the shortest input.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeZipDataset(std::vector<DatasetPtr> inputs);

// The zip node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ZipDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

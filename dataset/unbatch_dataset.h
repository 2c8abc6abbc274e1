// unbatch: splits dimension 0 of every component into consecutive elements.
// Components must be non-scalar and agree in dimension 0.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeUnbatchDataset(DatasetPtr input);

// The unbatch node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> UnbatchDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

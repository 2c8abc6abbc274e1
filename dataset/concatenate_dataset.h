// concatenate: all of the first input, then all of the second. The specs
// must agree in component count, names and dtypes; shapes may differ, and
// the result has their most specific common shape (differing dims become
// unknown, differing ranks an unknown rank), as in tf.data.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeConcatenateDataset(DatasetPtr first, DatasetPtr second);

// The concatenate node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ConcatenateDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

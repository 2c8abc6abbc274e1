// concatenate: all of the first input, then all of the second. The specs
// must agree in component count, names and dtypes; shapes may differ, and
// the result has their most specific common shape (differing dims become
// unknown, differing ranks an unknown rank), as in tf.data.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

Result<DatasetPtr> MakeConcatenateDataset(DatasetPtr first, DatasetPtr second);

// For ops whose elements come from several datasets (concatenate,
// choose_from_datasets): whether two specs have the same component names
// and dtypes, and then the spec that holds elements of both (each shape the
// most specific one compatible with both).
bool SameNamesAndDTypes(const ElementSpec& a, const ElementSpec& b);
// REQUIRES: SameNamesAndDTypes(a, b).
ElementSpec CommonElementSpec(const ElementSpec& a, const ElementSpec& b);

// The concatenate node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ConcatenateDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

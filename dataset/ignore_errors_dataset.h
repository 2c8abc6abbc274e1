// ignore_errors: drops the elements whose production failed and goes on.
// Cardinality becomes unknown.
#pragma once

#include "sluice/dataset/dataset.h"

namespace sluice {

struct IgnoreErrorsOptions {
  bool log_warning = false;  // log each dropped error
};

Result<DatasetPtr> MakeIgnoreErrorsDataset(DatasetPtr input, IgnoreErrorsOptions options = {});

// The ignore_errors node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> IgnoreErrorsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

// choose_from_datasets: the element of datasets[i] for each index i that
// the choice dataset yields (tf.data's Dataset.choose_from_datasets), as
// dataset/directed_interleave.h describes: with stop_on_empty_dataset a
// chosen dataset that is exhausted ends the sequence; without it, it is
// dropped and later choices of it are skipped. The choice dataset yields
// scalar int64 elements; the datasets' specs agree in component names and
// dtypes (shapes become their most specific common shape).
// In a spec the choice dataset is the chain the op follows and the datasets
// are pipelines of their own; in the builder, a static method.
#pragma once

#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct ChooseFromDatasetsOptions {
  bool stop_on_empty_dataset = true;
};

Result<DatasetPtr> MakeChooseFromDatasetsDataset(std::vector<DatasetPtr> datasets, DatasetPtr choice_dataset,
                                                 ChooseFromDatasetsOptions options = {});

// The choose_from_datasets node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> ChooseFromDatasetsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

// For ops reading several datasets into one sequence: the spec of their
// elements, or InvalidArgument naming `op` when the datasets (at least one,
// none null) disagree in component names or dtypes.
Result<ElementSpec> DatasetsElementSpec(std::string_view op, const std::vector<DatasetPtr>& datasets);

}  // namespace sluice

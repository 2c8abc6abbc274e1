// sample_from_datasets: elements drawn from several datasets at random,
// each draw picking dataset i with probability weights[i] / sum(weights)
// (tf.data's Dataset.sample_from_datasets). A dataset of weight 0 is never
// drawn (nor read). Draws come from random(seed) (dataset/random_dataset.h),
// which `sluice describe` shows under the op: the same seed gives the same
// order, and a saved iterator holds the generator's position with each
// dataset's (dataset/directed_interleave.h). Without stop_on_empty_dataset
// an exhausted dataset is dropped, its later draws skipped (so the others
// are drawn in proportion to their weights), and the sequence ends when
// every dataset is; with it, the first draw of an exhausted dataset ends it.
// The datasets' specs agree as choose_from_datasets requires. In a spec it
// is a source, its datasets pipelines of their own.
#pragma once

#include <optional>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct SampleFromDatasetsOptions {
  // One per dataset, finite and >= 0, not all 0; empty: all equal.
  std::vector<double> weights;
  std::optional<uint64_t> seed;  // unset: a random seed per dataset
  bool stop_on_empty_dataset = false;
};

Result<DatasetPtr> MakeSampleFromDatasetsDataset(std::vector<DatasetPtr> datasets,
                                                 SampleFromDatasetsOptions options = {});

// The sample_from_datasets node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> SampleFromDatasetsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

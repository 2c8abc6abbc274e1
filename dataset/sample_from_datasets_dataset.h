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
//
// The weights may instead change from draw to draw, as tf.data allows with a
// dataset for `weights`: element k of `weights_dataset`, a float32 or
// float64 vector with one weight per dataset, weighs draw k, and the
// sampling ends with that dataset. A vector that is not finite and >= 0
// with a positive sum is an InvalidArgument error for its draw. With it,
// every dataset may be drawn (and read).
// rerandomize_each_iteration gives each new iterator the next sequence of
// draws (random's rule); otherwise every iterator draws the same.
#pragma once

#include <optional>
#include <vector>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct SampleFromDatasetsOptions {
  // One per dataset, finite and >= 0, not all 0; empty: all equal.
  std::vector<double> weights;
  // Instead of weights: one vector of weights per draw (see above).
  DatasetPtr weights_dataset;
  std::optional<uint64_t> seed;  // unset: a random seed per dataset
  bool stop_on_empty_dataset = false;
  bool rerandomize_each_iteration = false;
};

Result<DatasetPtr> MakeSampleFromDatasetsDataset(std::vector<DatasetPtr> datasets,
                                                 SampleFromDatasetsOptions options = {});

// The sample_from_datasets node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> SampleFromDatasetsDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

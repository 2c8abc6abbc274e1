// random: an infinite sequence of uniform int64 values over the whole
// range (tf.data's Dataset.random), one scalar component. The same seed
// gives the same sequence, and every iterator repeats it unless
// rerandomize_each_iteration, which gives each new iterator of the dataset
// the next sequence. Value i of a sequence is splitmix64(sequence seed, i)
// (dataset/seed_mix.h), so it does not depend on how many values were
// drawn before; the values differ from TensorFlow's Philox ones.
// A saved iterator holds its sequence's seed and its position.
#pragma once

#include <optional>

#include "sluice/dataset/dataset.h"

namespace sluice {

struct RandomOptions {
  std::optional<uint64_t> seed;             // unset: a random seed per dataset
  bool rerandomize_each_iteration = false;  // each iterator draws a new sequence
};

Result<DatasetPtr> MakeRandomDataset(RandomOptions options = {});

// The random node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> RandomDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

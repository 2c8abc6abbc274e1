// map: applies an ElementFunction to every element. Sequential by default,
// on the caller's thread; with num_parallel_calls the calls run on the
// traversal's CPU pool (dataset/parallel_transform.h), a few consecutive
// elements per task when calls are cheap, and the output keeps the input
// order unless deterministic is off. A failure on one element is that element's error; the iterator goes
// on with the next. OutOfRange from the function becomes InvalidArgument, as
// in tf.data, so it cannot be mistaken for the end of the sequence.
// The function is not part of a saved iterator (dataset/iterator_state.h):
// it is assumed stateless, a C++ lambda included.
// A random function (BoundElementFunction::apply_seeded) gets a seed per
// element from (its seed, the map iterator's number, the element's position
// in map's input) (dataset/element_seeds.h); a saved iterator holds them.
#pragma once

#include <optional>

#include "sluice/dataset/dataset.h"
#include "sluice/dataset/functions.h"

namespace sluice {

struct MapOptions {
  // 0: sequential. N >= 1: up to N tasks of calls in flight or waiting for
  // the consumer (tf.data's num_parallel_calls). kAutotune: the autotuner
  // chooses and adapts N (dataset/autotuner.h).
  int64_t num_parallel_calls = 0;
  // With num_parallel_calls: kNondeterministic lets elements whose calls
  // finish first overtake slower ones. kDefault: the traversal's option
  // (RuntimeOptions::deterministic, true unless set).
  Determinism deterministic = Determinism::kDefault;
  // The pipeline seed (Pipeline::Seed, spec Pipeline.seed) for a random
  // function without a seed of its own: its seed is then
  // MixSeed(pipeline_seed, this map's depth). Unset: a random seed drawn
  // here. Ignored by other functions.
  std::optional<uint64_t> pipeline_seed;
};

Result<DatasetPtr> MakeMapDataset(DatasetPtr input, ElementFunctionPtr fn, MapOptions options = {});

// The map node of a pipeline spec (dataset/op_spec.h).
Result<DatasetPtr> MapDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context);

}  // namespace sluice

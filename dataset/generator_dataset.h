// from_generator: the elements a caller's callable produces, as tf.data's
// Dataset.from_generator. It is how C++ code feeds a pipeline from a source
// Sluice has no op for, and what sluice.Dataset.from_generator runs a Python
// generator with.
//
// Each iterator calls `start` once, at its first GetNext, for a fresh
// Generator, and then calls that generator once per GetNext:
//   - an element is checked against `element_spec` (dtypes, ranks, known
//     dims): a mismatch is that element's InvalidArgument error, naming its
//     index, and the traversal goes on;
//   - nullopt ends the sequence (the generator is not called again);
//   - an error is that element's error, and the traversal goes on with the
//     next call (a generator that can't go on returns nullopt then).
// An error from `start` is returned once, and the sequence then ends.
// Cardinality is unknown. The generator's state is the callable's own, so a
// traversal can't be saved (Unimplemented), and a graph holding one can't be
// written as a spec. Destroying an iterator waits for a call under way to
// return; a generator that blocks holds it up.
// Thread safety: `start` may be called concurrently by separate iterators; a
// generator is called by one thread at a time.
#pragma once

#include <functional>

#include "sluice/dataset/dataset.h"

namespace sluice {

// One traversal's source: the next element, nullopt at the end, or an error.
using Generator = std::function<Result<std::optional<Element>>()>;

struct GeneratorOptions {
  std::function<Result<Generator>()> start;  // required
  ElementSpec element_spec;                  // at least one component
};

Result<DatasetPtr> MakeGeneratorDataset(GeneratorOptions options);

}  // namespace sluice

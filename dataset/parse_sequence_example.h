// parse_sequence_example: a built-in element function (for map) that parses
// serialized tf.train.SequenceExample records with the fast parser
// (tfrecord/sequence_example_parser.h): tf.io.parse_single_sequence_example
// on a scalar string component, and tf.io.parse_sequence_example on a [N]
// string vector, as after batch(). The element becomes the context
// features, named by key as parse_example names them, then the sequence
// features (tfrecord/sequence_example_schema.h gives each layout's
// components: a FixedLen list is [steps] + shape, batched [N, max steps] +
// shape padded with 0 or "" plus "<key>/lengths"; a VarLen list is its
// values end to end plus "<key>/row_lengths" per step, batched plus
// "<key>/lengths"). Other components of the input are dropped.
// Errors (InvalidArgument) name the feature, the step and the record within
// the batch, and for a single record read from a TFRecord file, the file
// and byte offset.
// Thread safety: immutable; may be called concurrently.
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/sequence_example_schema.h"

namespace sluice {

namespace spec {
class ParseSequenceExample;
}

// `component`: the records (a string scalar or vector); empty for a
// one-component element. The features as SequenceExampleSchema::Make
// validates them; at least one of either.
Result<ElementFunctionPtr> MakeParseSequenceExampleFunction(std::string component,
                                                            std::vector<FeatureConfig> context_features,
                                                            std::vector<SequenceFeatureConfig> sequence_features);

// The function a spec describes (builtin_functions.cc dispatches here).
Result<ElementFunctionPtr> ParseSequenceExampleFunctionFromSpec(const spec::ParseSequenceExample& node);

}  // namespace sluice

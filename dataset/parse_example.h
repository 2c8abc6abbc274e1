// parse_example: a built-in element function (for map) that parses
// serialized tf.train.Example records with the fast parser
// (tfrecord/example_parser.h): tf.io.parse_single_example on a scalar string
// component, and the vectorised tf.io.parse_example on a [N] string vector,
// as after batch(). The element becomes the parsed features, named by key
// (tfrecord/example_schema.h gives each layout's components); other
// components of the input are dropped.
//
// After batch() one call parses the whole batch, writing every record's
// values straight into the batch tensors: the fast order is
//   tfrecord -> batch(N) -> map(parse_example)
// On single records with only kFixedLen features the function is row-wise,
// so map hands it whole runs of records and it parses them as one batch.
// Bytes features come out as views of the records (ExampleParser::Parse),
// without a copy; the parsed element keeps the records' bytes alive.
// Errors (InvalidArgument) name the feature, the record within the batch,
// and what was expected and found.
// Thread safety: immutable; may be called concurrently.
#pragma once

#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/tfrecord/example_schema.h"

namespace sluice {

namespace spec {
class FeatureSpec;
class ParseExample;
}  // namespace spec

// `component`: the records (a string scalar or vector); empty for a
// one-component element. `features`: as ExampleSchema::Make validates them.
Result<ElementFunctionPtr> MakeParseExampleFunction(std::string component,
                                                    std::vector<FeatureConfig> features);

// The function a spec describes (builtin_functions.cc dispatches here).
Result<ElementFunctionPtr> ParseExampleFunctionFromSpec(const spec::ParseExample& node);

// A feature of an Example (or of a SequenceExample's context) as a spec
// writes it, and back; errors start with `where`.
void FeatureConfigToSpec(const FeatureConfig& feature, spec::FeatureSpec* out);
Result<FeatureConfig> FeatureConfigFromSpec(const spec::FeatureSpec& feature, std::string_view where);

}  // namespace sluice

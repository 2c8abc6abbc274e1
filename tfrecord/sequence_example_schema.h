// SequenceExampleSchema: which features to take out of
// tf.train.SequenceExample records (tf.io.parse_sequence_example): context
// features, one value per record, configured and laid out as in
// ExampleSchema; and sequence features, read from the record's FeatureLists
// map, each a FeatureList of one Feature per step.
//
// Sequence feature layouts (N records in a batch, `steps` per record):
//
//   kFixedLen  every step holds exactly prod(shape) values. Output `key`:
//              [steps] + shape; batched [N, max steps] + shape, padded with
//              0 or "", then `key`/lengths: int64 [N], each record's steps.
//   kVarLen    a step holds any number of values. Output `key`: the steps'
//              values end to end, [total], then `key`/row_lengths: int64
//              [steps], each step's count; batched, the records' values and
//              row lengths end to end, then `key`/lengths: int64 [N].
//
// A step whose Feature has no list set holds no values. A record without
// the feature list has zero steps, or fails if the feature is `required`.
// Output components: the context's (ExampleSchema order), then each sequence
// feature's, in schema order.
// Thread safety: immutable after Make.
#pragma once

#include <string>
#include <vector>

#include "sluice/tfrecord/example_schema.h"

namespace sluice {

enum class StepLayout { kFixedLen, kVarLen };

struct SequenceFeatureConfig {
  std::string key;              // non-empty
  DType dtype = DType::kInt64;  // int64, float32 or string
  StepLayout layout = StepLayout::kFixedLen;
  // kFixedLen only: the shape of one step's values. Default: a scalar.
  Shape shape;
  // A record without this feature list is an error, not zero steps.
  bool required = false;
};

// The suffix of a sequence feature's steps-per-record component: "key/lengths".
inline constexpr std::string_view kLengthsSuffix = "/lengths";

class SequenceExampleSchema {
 public:
  // Validates the context as ExampleSchema::Make does, and the sequence
  // features likewise: non-empty distinct keys, int64, float32 or string,
  // kFixedLen shapes of rank < kMaxRank - 1 that CheckFixedLenShape
  // accepts; all output component names distinct.
  static Result<SequenceExampleSchema> Make(std::vector<FeatureConfig> context,
                                            std::vector<SequenceFeatureConfig> sequence);

  const ExampleSchema& context() const { return context_; }
  const std::vector<SequenceFeatureConfig>& sequence_features() const { return sequence_; }
  // The components of one parsed record, and of a parsed batch.
  const ElementSpec& element_spec() const { return element_spec_; }
  const ElementSpec& batched_element_spec() const { return batched_element_spec_; }

 private:
  SequenceExampleSchema(ExampleSchema context, std::vector<SequenceFeatureConfig> sequence)
      : context_(std::move(context)), sequence_(std::move(sequence)) {}

  ExampleSchema context_;
  std::vector<SequenceFeatureConfig> sequence_;
  ElementSpec element_spec_;
  ElementSpec batched_element_spec_;
};

}  // namespace sluice

// SequenceExampleParser: the fast tf.train.SequenceExample parser
// (tf.io.parse_sequence_example), built like ExampleParser: it walks the
// wire format of each record (context = 1, feature_lists = 2), finds the
// requested context features and feature lists by hashed key, skips the rest
// unread, and decodes values straight into outputs allocated at their final
// size. Protobuf's semantics are kept as in ExampleParser: last duplicate key
// wins, concatenated records merge, unknown fields are skipped.
//
// Thread safety: immutable; Parse* may be called concurrently.
#pragma once

#include <span>
#include <string_view>

#include "sluice/core/element.h"
#include "sluice/tfrecord/feature_map_reader.h"
#include "sluice/tfrecord/sequence_example_schema.h"

namespace sluice {

class SequenceExampleParser {
 public:
  explicit SequenceExampleParser(SequenceExampleSchema schema);

  const SequenceExampleSchema& schema() const { return schema_; }
  // What ParseSingle and ParseBatch return (see SequenceExampleSchema).
  const ElementSpec& element_spec() const { return schema_.element_spec(); }
  const ElementSpec& batched_element_spec() const { return schema_.batched_element_spec(); }

  // One serialized SequenceExample. Errors name the feature (and step), e.g.
  // "Feature list 's', step 2: expected 3 float values per step (shape [3]),
  // found 2".
  Result<Element> ParseSingle(std::string_view record) const;
  // A batch of serialized SequenceExamples; errors also name the first
  // failing record's index in the batch.
  Result<Element> ParseBatch(std::span<const std::string_view> records) const;
  // `records`, a string scalar (as ParseSingle) or vector (as ParseBatch);
  // an error about a record read from a TFRecord file also names the file
  // and the record's byte offset (WithRecordOrigin,
  // tfrecord/record_reader.h). REQUIRES: a string tensor of rank 0 or 1.
  Result<Element> Parse(const Tensor& records) const;

 private:
  // `owner`: the tensor holding the records, to name where a failing one
  // was read; null when unknown.
  Result<Element> Parse(std::span<const std::string_view> records, bool batched, const Tensor* owner) const;
  // Sets context[f] / lists[s] to where context feature f and feature list
  // s lie in `record`.
  Status Locate(std::string_view record, FeatureSlice* context, FeatureSlice* lists) const;

  const SequenceExampleSchema schema_;
  const FeatureKeyIndex context_index_;
  const FeatureKeyIndex sequence_index_;
};

}  // namespace sluice

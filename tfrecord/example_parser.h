// ExampleParser: the fast tf.train.Example parser (tf.io.parse_example). It
// walks the protobuf wire format of each serialized record directly, with
// no message objects: keys and values are views into the input until the
// requested values are decoded straight into the output tensors. Each map
// entry's key is hashed once; entries of unrequested features are skipped
// without decoding their values.
//
// Results match protobuf's ParseFromString followed by a lookup of each
// requested feature: the last entry of a duplicated key wins, concatenated
// Examples merge, unknown fields are skipped, packed and unpacked numeric
// lists are both read. The one difference is TensorFlow's: bytes inside
// unrequested features are not looked at, so a record whose only damage is
// there still parses. Malformed bytes elsewhere are InvalidArgument. An
// error names the record within the batch and, from Parse of a string
// tensor whose records a RecordReader read, the file and byte offset of the
// record (RecordOrigin, tfrecord/record_reader.h).
//
// A batch is parsed in two passes: the first finds and checks every
// requested feature of every record, the second allocates each output at its
// final size and decodes into it (a kFixedLen feature's row in place).
//
// Bytes features: ParseSingle and ParseBatch copy them out, into one block
// per output tensor; Parse of a string tensor returns them as views of the
// records' bytes (core/tstring.h) whose outputs keep the records' tensor
// alive, so the image of an Example costs no copy.
//
// Thread safety: immutable; Parse* may be called concurrently.
#pragma once

#include <span>
#include <string_view>

#include "sluice/core/element.h"
#include "sluice/tfrecord/example_schema.h"
#include "sluice/tfrecord/feature_map_reader.h"

namespace sluice {

class ExampleParser {
 public:
  explicit ExampleParser(ExampleSchema schema);

  const ExampleSchema& schema() const { return schema_; }
  // What ParseSingle and ParseBatch return (see ExampleSchema).
  const ElementSpec& element_spec() const { return schema_.element_spec(); }
  const ElementSpec& batched_element_spec() const { return schema_.batched_element_spec(); }

  // One serialized Example. Errors name the feature, e.g.
  // "Feature 'x': expected float, found int64".
  Result<Element> ParseSingle(std::string_view record) const;
  // A batch of serialized Examples, parsed into one element with a leading
  // batch dimension (kFixedLen: [N] + shape). Errors name the feature and the
  // first failing record's index: "Feature 'label' (int64) is required but
  // missing in record 3".
  Result<Element> ParseBatch(std::span<const std::string_view> records) const;
  // `records`, a string scalar (as ParseSingle) or vector (as ParseBatch),
  // with bytes features as views of the records that keep `records`'s
  // buffer alive. REQUIRES: a string tensor of rank 0 or 1.
  Result<Element> Parse(const Tensor& records) const;

 private:
  // `owner`: the tensor holding the records, for bytes views; null to copy.
  Result<Element> Parse(std::span<const std::string_view> records, bool batched,
                        const Tensor* owner) const;
  // Sets slices[f] to where feature f's value lies in `record`.
  Status LocateFeatures(std::string_view record, FeatureSlice* slices) const;

  const ExampleSchema schema_;
  const FeatureKeyIndex key_index_;
};

}  // namespace sluice

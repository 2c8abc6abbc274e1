// ExampleSchema: which features to take out of tf.train.Example records, and
// as what tensors (tf.io.parse_example's feature configuration).
//
// Each feature is read from the record's Features map by key and must hold
// values of its dtype's kind (int64 -> int64_list, float32 -> float_list,
// string -> bytes_list). A feature that is absent, or present with no list
// set, is missing. The layouts:
//
//   kFixedLen      exactly prod(shape) values per record. Output `key`:
//                  `shape`; batched [N] + shape. Missing: `default_value`
//                  (a tensor of `shape`, or a scalar that fills it), else an
//                  error.
//   kVarLen        any number n of values. Output `key`: [n]; batched, the
//                  records' values end to end, [total], then
//                  `key`/row_lengths: int64 [N], each record's n.
//                  Missing: no values.
//   kVarLenPadded  any number n of values. Output `key`: [n]; batched
//                  [N, max n], each row padded with `default_value` (a
//                  scalar; 0 or "" if unset). Missing: no values.
//
// Output components are named by key, in schema order, with row_lengths
// right after their values.
// Thread safety: immutable after Make.
#pragma once

#include <string>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/core/status.h"
#include "sluice/core/tensor.h"

namespace sluice {

enum class FeatureLayout { kFixedLen, kVarLen, kVarLenPadded };

struct FeatureConfig {
  std::string key;              // non-empty
  DType dtype = DType::kInt64;  // int64, float32 or string
  FeatureLayout layout = FeatureLayout::kFixedLen;
  // kFixedLen only: the shape of one record's values. Default: a scalar.
  Shape shape;
  // kFixedLen: the value of a missing feature (unset: the feature is
  // required). kVarLenPadded: the padding scalar (unset: 0 or "").
  // kVarLen: must be unset.
  Tensor default_value;
};

// The suffix of a ragged feature's row lengths component: "key/row_lengths".
inline constexpr std::string_view kRowLengthsSuffix = "/row_lengths";

class ExampleSchema {
 public:
  // Validates the features: non-empty distinct keys; int64, float32 or
  // string; kFixedLen shapes fully defined (dims >= 0, as
  // tf.io.FixedLenFeature), of rank < kMaxRank (the batch dim must fit) and
  // of a byte size that fits int64;
  // defaults of the feature's dtype and shape (or a scalar); no default for
  // kVarLen; distinct output component names.
  static Result<ExampleSchema> Make(std::vector<FeatureConfig> features);

  // As given, except that kFixedLen defaults are broadcast to `shape` and
  // kVarLenPadded ones are always set.
  const std::vector<FeatureConfig>& features() const { return features_; }
  // The components of one parsed record, and of a parsed batch (leading dim
  // unknown).
  const ElementSpec& element_spec() const { return element_spec_; }
  const ElementSpec& batched_element_spec() const { return batched_element_spec_; }

 private:
  ExampleSchema() = default;

  std::vector<FeatureConfig> features_;
  ElementSpec element_spec_;
  ElementSpec batched_element_spec_;
};

// InvalidArgument unless a kFixedLen `shape` is fully defined (dims >= 0,
// as tf.io.FixedLenFeature's) and its bytes of `dtype` fit int64;
// `feature` names the feature in the message ("Feature 'a'").
Status CheckFixedLenShape(std::string_view feature, DType dtype, const Shape& shape);

// InvalidArgument naming the first component name `spec` uses twice.
Status CheckDistinctComponentNames(const ElementSpec& spec);

}  // namespace sluice

// The two passes that turn located features into output tensors, shared by
// the Example parser and the SequenceExample parser's context features:
//
//   1. ResolveFeatures, per record: each configured feature's kind and value
//      count, checked against its config (presence, kind, count).
//   2. WriteFeatures, per batch: with every count known, allocates each
//      output at its final size and decodes the values straight into it.
//
// Records are numbered in error messages by their index in the batch
// (`record`), or not at all for a lone record (record = kSingleRecord).
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "sluice/core/element.h"
#include "sluice/tfrecord/example_schema.h"
#include "sluice/tfrecord/feature_values.h"

namespace sluice {

inline constexpr int64_t kSingleRecord = -1;

// " in record 3", or "" for kSingleRecord: where a message's problem is.
std::string InRecord(int64_t record);

// An uninitialized output tensor of feature `key`: its shape comes from the
// schema and the records, so its size is checked (Tensor::TryAllocate), and
// an error names the feature.
Result<Tensor> AllocateFeatureOutput(std::string_view key, DType dtype, const Shape& shape);

// Pass 1 for one record: resolves slices[f], feature f's place in the
// record, into values[f], checking it against features[f].
// REQUIRES: slices and values have features.size() elements.
Status ResolveFeatures(std::span<const FeatureConfig> features, const FeatureSlice* slices,
                       int64_t record, FeatureValues* values);

// Pass 2: appends to `out` the components that `features` produce (batched or
// single, as ExampleSchema describes) for `num_records` records, whose
// resolved values are values[record * features.size() + f]. Bytes values
// are views of the records' bytes: with `records` (the string tensor whose
// elements hold them) the outputs keep it alive; without, each output's
// strings are copied into one block of its own (Tensor::Compacted).
// REQUIRES: num_records == 1 unless batched.
Status WriteFeatures(std::span<const FeatureConfig> features, std::span<const FeatureValues> values,
                     int64_t num_records, bool batched, Element* out, const Tensor* records = nullptr);

// Calls fn(T{}) with the C++ value type of a feature dtype (TString, float
// or int64_t). REQUIRES: FeatureKindOf(dtype) != kNone.
template <typename Fn>
auto VisitFeatureDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kString:
      return fn(TString{});
    case DType::kFloat32:
      return fn(float{});
    default:
      return fn(int64_t{});
  }
}

}  // namespace sluice

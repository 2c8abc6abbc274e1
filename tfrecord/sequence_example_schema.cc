#include "sluice/tfrecord/sequence_example_schema.h"

#include <unordered_map>

#include "sluice/tfrecord/feature_values.h"

namespace sluice {
namespace {

Status ValidateSequenceFeature(size_t position, const SequenceFeatureConfig& feature) {
  if (feature.key.empty()) {
    return InvalidArgumentError("Sequence feature ", position, " has an empty key");
  }
  if (FeatureKindOf(feature.dtype) == FeatureKind::kNone) {
    return InvalidArgumentError("Sequence feature '", feature.key, "' has dtype ",
                                DTypeName(feature.dtype),
                                "; a feature holds int64, float32 or string");
  }
  if (feature.layout == StepLayout::kVarLen && feature.shape.rank() != 0) {
    return InvalidArgumentError("Sequence feature '", feature.key, "' has shape ", feature.shape,
                                ", but only a kFixedLen feature takes one");
  }
  if (feature.shape.rank() >= kMaxRank - 1) {
    return InvalidArgumentError("Sequence feature '", feature.key, "' has shape ", feature.shape,
                                " of rank ", feature.shape.rank(), "; at most ", kMaxRank - 2,
                                " leaves room for the batch and step dimensions");
  }
  return CheckFixedLenShape(StrCat("Sequence feature '", feature.key, "'"), feature.dtype, feature.shape);
}

}  // namespace

Result<SequenceExampleSchema> SequenceExampleSchema::Make(
    std::vector<FeatureConfig> context, std::vector<SequenceFeatureConfig> sequence) {
  SLUICE_ASSIGN_OR_RETURN(ExampleSchema context_schema, ExampleSchema::Make(std::move(context)));
  std::vector<ComponentSpec> single = context_schema.element_spec().components();
  std::vector<ComponentSpec> batched = context_schema.batched_element_spec().components();
  std::unordered_map<std::string_view, size_t> positions;
  for (size_t i = 0; i < sequence.size(); ++i) {
    const SequenceFeatureConfig& feature = sequence[i];
    SLUICE_RETURN_IF_ERROR(ValidateSequenceFeature(i, feature));
    if (auto [it, inserted] = positions.emplace(feature.key, i); !inserted) {
      return InvalidArgumentError("Sequence feature key '", feature.key,
                                  "' is used twice (sequence features ", it->second, " and ", i,
                                  ")");
    }
    const std::string lengths_name = feature.key + std::string(kLengthsSuffix);
    const std::string row_lengths_name = feature.key + std::string(kRowLengthsSuffix);
    if (feature.layout == StepLayout::kFixedLen) {
      const PartialShape steps = PartialShape(feature.shape).Prepended(-1);
      single.push_back({feature.key, feature.dtype, steps});
      batched.push_back({feature.key, feature.dtype, steps.Prepended(-1)});
    } else {
      single.push_back({feature.key, feature.dtype, PartialShape{-1}});
      single.push_back({row_lengths_name, DType::kInt64, PartialShape{-1}});
      batched.push_back({feature.key, feature.dtype, PartialShape{-1}});
      batched.push_back({row_lengths_name, DType::kInt64, PartialShape{-1}});
    }
    batched.push_back({lengths_name, DType::kInt64, PartialShape{-1}});
  }
  SequenceExampleSchema schema(std::move(context_schema), std::move(sequence));
  schema.element_spec_ = ElementSpec(std::move(single));
  schema.batched_element_spec_ = ElementSpec(std::move(batched));
  SLUICE_RETURN_IF_ERROR(CheckDistinctComponentNames(schema.batched_element_spec_));
  return schema;
}

}  // namespace sluice

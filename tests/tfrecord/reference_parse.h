// The trivially correct model the fast parsers are tested against: records
// parsed by protobuf's generated classes, features looked up in the parsed
// map, outputs built from std::vectors. It states the schema semantics (and
// error messages) of tfrecord/example_schema.h a second time, plainly.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/tfrecord/example.pb.h"
#include "sluice/tfrecord/example_schema.h"
#include "sluice/tfrecord/feature_outputs.h"
#include "sluice/tfrecord/feature_values.h"
#include "sluice/tfrecord/sequence_example_schema.h"

namespace sluice::testing {

inline FeatureKind KindOf(const tensorflow::Feature& feature) {
  return static_cast<FeatureKind>(feature.kind_case());  // oneof cases are the field numbers
}

// The values of a Feature of T's kind.
template <typename T>
std::vector<T> ValuesOf(const tensorflow::Feature& feature) {
  if constexpr (std::is_same_v<T, TString>) {
    return {feature.bytes_list().value().begin(), feature.bytes_list().value().end()};
  } else if constexpr (std::is_same_v<T, float>) {
    return {feature.float_list().value().begin(), feature.float_list().value().end()};
  } else {
    return {feature.int64_list().value().begin(), feature.int64_list().value().end()};
  }
}

inline int64_t CountOf(const tensorflow::Feature& feature) {
  switch (KindOf(feature)) {
    case FeatureKind::kBytes:
      return feature.bytes_list().value_size();
    case FeatureKind::kFloat:
      return feature.float_list().value_size();
    case FeatureKind::kInt64:
      return feature.int64_list().value_size();
    case FeatureKind::kNone:
      break;
  }
  return 0;
}

// " in record r" for a batch; nothing for a lone record.
inline std::string Where(int64_t record, bool batched) {
  return batched ? " in record " + std::to_string(record) : "";
}

// The feature `key` of `features`, or an empty one when absent.
inline const tensorflow::Feature& Lookup(const tensorflow::Features& features,
                                         const std::string& key) {
  auto it = features.feature().find(key);
  return it == features.feature().end() ? tensorflow::Feature::default_instance() : it->second;
}

// The first problem with one record's features, in schema order.
inline Status ReferenceCheck(const std::vector<FeatureConfig>& configs,
                             const tensorflow::Features& features, int64_t record, bool batched) {
  for (const FeatureConfig& config : configs) {
    const tensorflow::Feature& feature = Lookup(features, config.key);
    const FeatureKind expected = FeatureKindOf(config.dtype);
    const std::string name = "Feature '" + config.key + "'";
    if (KindOf(feature) == FeatureKind::kNone) {
      if (config.layout != FeatureLayout::kFixedLen || config.default_value.valid()) continue;
      return InvalidArgumentError(name, " (", FeatureKindName(expected),
                                  ") is required but missing", Where(record, batched));
    }
    if (KindOf(feature) != expected) {
      return InvalidArgumentError(name, Where(record, batched), ": expected ",
                                  FeatureKindName(expected), ", found ",
                                  FeatureKindName(KindOf(feature)));
    }
    if (config.layout == FeatureLayout::kFixedLen &&
        CountOf(feature) != config.shape.NumElements()) {
      return InvalidArgumentError(name, Where(record, batched), ": expected ",
                                  config.shape.NumElements(), " ", FeatureKindName(expected),
                                  " values (shape ", config.shape, "), found ", CountOf(feature));
    }
  }
  return OkStatus();
}

// Appends the outputs of `configs` for these (checked) records to `out`.
inline void ReferenceWrite(const std::vector<FeatureConfig>& configs,
                           const std::vector<const tensorflow::Features*>& records, bool batched,
                           Element* out) {
  const auto n = static_cast<int64_t>(records.size());
  for (const FeatureConfig& config : configs) {
    VisitFeatureDType(config.dtype, [&](auto zero) {
      using T = decltype(zero);
      std::vector<std::vector<T>> rows;
      for (const tensorflow::Features* features : records) {
        const tensorflow::Feature& feature = Lookup(*features, config.key);
        if (KindOf(feature) != FeatureKind::kNone) {
          rows.push_back(ValuesOf<T>(feature));
        } else if (config.layout == FeatureLayout::kFixedLen) {
          const T* value = config.default_value.data<T>();
          rows.emplace_back(value, value + config.default_value.NumElements());
        } else {
          rows.emplace_back();
        }
      }
      size_t longest = 0;
      for (const auto& row : rows) longest = std::max(longest, row.size());
      const bool padded = batched && config.layout == FeatureLayout::kVarLenPadded;
      std::vector<T> flat;
      std::vector<int64_t> lengths;
      for (auto& row : rows) {
        lengths.push_back(static_cast<int64_t>(row.size()));
        if (padded) row.resize(longest, config.default_value.scalar<T>());
        flat.insert(flat.end(), row.begin(), row.end());
      }
      const auto size = static_cast<int64_t>(flat.size());
      if (config.layout == FeatureLayout::kFixedLen) {
        out->components.push_back(
            Tensor::FromVector(flat, batched ? config.shape.Prepended(n) : config.shape));
      } else if (padded) {
        out->components.push_back(
            Tensor::FromVector(flat, Shape{n, static_cast<int64_t>(longest)}));
      } else {
        out->components.push_back(Tensor::FromVector(flat, Shape{size}));
      }
      if (batched && config.layout == FeatureLayout::kVarLen) {
        out->components.push_back(Tensor::FromVector(lengths));
      }
    });
  }
}

// Appends the outputs of one sequence feature for these (checked) records.
inline void ReferenceWriteSequence(const SequenceFeatureConfig& config,
                                   const std::vector<const tensorflow::FeatureList*>& lists,
                                   bool batched, Element* out) {
  VisitFeatureDType(config.dtype, [&](auto zero) {
    using T = decltype(zero);
    const int64_t per_step = config.shape.NumElements();
    std::vector<int64_t> lengths;
    std::vector<int64_t> row_lengths;
    std::vector<T> values;
    for (const tensorflow::FeatureList* list : lists) {
      lengths.push_back(list->feature_size());
      for (const tensorflow::Feature& step : list->feature()) {
        const std::vector<T> step_values = ValuesOf<T>(step);
        row_lengths.push_back(static_cast<int64_t>(step_values.size()));
        values.insert(values.end(), step_values.begin(), step_values.end());
      }
    }
    const auto n = static_cast<int64_t>(lists.size());
    const auto total_steps = static_cast<int64_t>(row_lengths.size());
    if (config.layout == StepLayout::kVarLen) {
      out->components.push_back(Tensor::FromVector(values));
      out->components.push_back(Tensor::FromVector(row_lengths));
    } else if (!batched) {
      out->components.push_back(Tensor::FromVector(values, config.shape.Prepended(total_steps)));
    } else {
      const int64_t max_steps = n == 0 ? 0 : *std::max_element(lengths.begin(), lengths.end());
      std::vector<T> padded;
      auto next = values.begin();
      for (int64_t length : lengths) {
        padded.insert(padded.end(), next, next + length * per_step);
        next += length * per_step;
        padded.resize(padded.size() + (max_steps - length) * per_step);
      }
      out->components.push_back(
          Tensor::FromVector(padded, config.shape.Prepended(max_steps).Prepended(n)));
    }
    if (batched) out->components.push_back(Tensor::FromVector(lengths));
  });
}

// The first problem with one record's feature list `config.key`.
inline Status ReferenceCheckSequence(const SequenceFeatureConfig& config,
                                     const tensorflow::FeatureLists& lists, int64_t record,
                                     bool batched) {
  const std::string where = "Feature list '" + config.key + "'" + Where(record, batched);
  const FeatureKind expected = FeatureKindOf(config.dtype);
  auto it = lists.feature_list().find(config.key);
  if (it == lists.feature_list().end()) {
    if (!config.required) return OkStatus();
    return InvalidArgumentError("Feature list '", config.key, "' (", FeatureKindName(expected),
                                ") is required but missing", Where(record, batched));
  }
  for (int step = 0; step < it->second.feature_size(); ++step) {
    const tensorflow::Feature& feature = it->second.feature(step);
    const FeatureKind kind = KindOf(feature);
    if (kind != FeatureKind::kNone && kind != expected) {
      return InvalidArgumentError(where, ", step ", step, ": expected ", FeatureKindName(expected),
                                  ", found ", FeatureKindName(kind));
    }
    if (config.layout == StepLayout::kFixedLen && CountOf(feature) != config.shape.NumElements()) {
      return InvalidArgumentError(where, ", step ", step, ": expected ", config.shape.NumElements(),
                                  " ", FeatureKindName(expected), " values per step (shape ",
                                  config.shape, "), found ", CountOf(feature));
    }
  }
  return OkStatus();
}

// What SequenceExampleParser returns for `records`.
inline Result<Element> ReferenceParse(const SequenceExampleSchema& schema,
                                      const std::vector<std::string>& records, bool batched) {
  std::vector<tensorflow::SequenceExample> examples(records.size());
  std::vector<const tensorflow::Features*> contexts;
  for (size_t r = 0; r < records.size(); ++r) {
    if (!examples[r].ParseFromString(records[r]))
      return InvalidArgumentError("protobuf rejects record ", r);
    contexts.push_back(&examples[r].context());
    const auto record = static_cast<int64_t>(r);
    SLUICE_RETURN_IF_ERROR(
        ReferenceCheck(schema.context().features(), examples[r].context(), record, batched));
    for (const SequenceFeatureConfig& config : schema.sequence_features()) {
      SLUICE_RETURN_IF_ERROR(
          ReferenceCheckSequence(config, examples[r].feature_lists(), record, batched));
    }
  }
  Element out;
  ReferenceWrite(schema.context().features(), contexts, batched, &out);
  for (const SequenceFeatureConfig& config : schema.sequence_features()) {
    std::vector<const tensorflow::FeatureList*> lists;
    for (const tensorflow::SequenceExample& example : examples) {
      auto it = example.feature_lists().feature_list().find(config.key);
      lists.push_back(it == example.feature_lists().feature_list().end()
                          ? &tensorflow::FeatureList::default_instance()
                          : &it->second);
    }
    ReferenceWriteSequence(config, lists, batched, &out);
  }
  return out;
}

// What ExampleParser returns for `records`.
inline Result<Element> ReferenceParse(const ExampleSchema& schema,
                                      const std::vector<std::string>& records, bool batched) {
  std::vector<tensorflow::Example> examples(records.size());
  std::vector<const tensorflow::Features*> features;
  for (size_t r = 0; r < records.size(); ++r) {
    if (!examples[r].ParseFromString(records[r]))
      return InvalidArgumentError("protobuf rejects record ", r);
    features.push_back(&examples[r].features());
    SLUICE_RETURN_IF_ERROR(
        ReferenceCheck(schema.features(), *features.back(), static_cast<int64_t>(r), batched));
  }
  Element out;
  ReferenceWrite(schema.features(), features, batched, &out);
  return out;
}

// Same components, or the same error message.
inline void ExpectSameResult(const Result<Element>& actual, const Result<Element>& expected) {
  ASSERT_EQ(actual.ok(), expected.ok())
      << "actual: " << actual.status() << "\nexpected: " << expected.status();
  if (!expected.ok()) {
    EXPECT_EQ(actual.status(), expected.status());
    return;
  }
  ASSERT_EQ(actual->size(), expected->size());
  for (size_t i = 0; i < expected->size(); ++i) {
    EXPECT_TRUE((*actual)[i].Equals((*expected)[i]))
        << "component " << i << ": " << (*actual)[i].DebugString(8) << "\nexpected "
        << (*expected)[i].DebugString(8);
  }
}

}  // namespace sluice::testing

#include "sluice/tfrecord/example_schema.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "sluice/tfrecord/feature_values.h"

namespace sluice {
namespace {

// A tensor of `shape` with every value equal to the scalar `value`; the
// shape is the user's, so its size is checked.
Result<Tensor> Filled(const Tensor& value, const Shape& shape) {
  SLUICE_ASSIGN_OR_RETURN(Tensor out, Tensor::TryAllocate(value.dtype(), shape));
  VisitDType(value.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* data = out.mutable_data<T>();
    std::fill(data, data + out.NumElements(), value.scalar<T>());
  });
  return out;
}

// Checks a kFixedLen default and broadcasts a scalar one to the shape.
Status NormalizeDefault(FeatureConfig& feature) {
  const Tensor& value = feature.default_value;
  if (value.dtype() != feature.dtype) {
    return InvalidArgumentError("Feature '", feature.key, "': default value has dtype ",
                                DTypeName(value.dtype()), ", expected ", DTypeName(feature.dtype));
  }
  if (value.shape() == feature.shape) return OkStatus();
  if (value.rank() != 0) {
    return InvalidArgumentError("Feature '", feature.key, "': default value has shape ",
                                value.shape(), ", expected ", feature.shape, " or a scalar");
  }
  Result<Tensor> filled = Filled(value, feature.shape);
  if (!filled.ok()) return filled.status().WithContext(StrCat("Feature '", feature.key, "': default value"));
  feature.default_value = *std::move(filled);
  return OkStatus();
}

// Checks one feature and fills in its defaults (see ExampleSchema::features).
Status NormalizeFeature(size_t position, FeatureConfig& feature) {
  if (feature.key.empty()) return InvalidArgumentError("Feature ", position, " has an empty key");
  if (FeatureKindOf(feature.dtype) == FeatureKind::kNone) {
    return InvalidArgumentError("Feature '", feature.key, "' has dtype ", DTypeName(feature.dtype),
                                "; a feature holds int64, float32 or string");
  }
  if (feature.layout == FeatureLayout::kFixedLen) {
    if (feature.shape.rank() >= kMaxRank) {
      return InvalidArgumentError("Feature '", feature.key, "' has shape ", feature.shape,
                                  " of rank ", feature.shape.rank(), "; at most ", kMaxRank - 1,
                                  " leaves room for the batch dimension");
    }
    SLUICE_RETURN_IF_ERROR(CheckFixedLenShape(StrCat("Feature '", feature.key, "'"), feature.dtype, feature.shape));
    return feature.default_value.valid() ? NormalizeDefault(feature) : OkStatus();
  }
  if (feature.shape.rank() != 0) {
    return InvalidArgumentError("Feature '", feature.key, "' has shape ", feature.shape,
                                ", but only a kFixedLen feature takes one");
  }
  if (feature.layout == FeatureLayout::kVarLen) {
    if (!feature.default_value.valid()) return OkStatus();
    return InvalidArgumentError("Feature '", feature.key,
                                "' is kVarLen and takes no default value");
  }
  if (!feature.default_value.valid()) {
    feature.default_value = Tensor::Allocate(feature.dtype, Shape{});  // 0 or ""
    return OkStatus();
  }
  if (feature.default_value.dtype() != feature.dtype || feature.default_value.rank() != 0) {
    return InvalidArgumentError(
        "Feature '", feature.key, "': padding value is ", DTypeName(feature.default_value.dtype()),
        feature.default_value.shape(), ", expected a ", DTypeName(feature.dtype), " scalar");
  }
  return OkStatus();
}

}  // namespace

Result<ExampleSchema> ExampleSchema::Make(std::vector<FeatureConfig> features) {
  ExampleSchema schema;
  std::unordered_map<std::string_view, size_t> positions;
  std::vector<ComponentSpec> single;
  std::vector<ComponentSpec> batched;
  for (size_t i = 0; i < features.size(); ++i) {
    FeatureConfig& feature = features[i];
    SLUICE_RETURN_IF_ERROR(NormalizeFeature(i, feature));
    if (auto [it, inserted] = positions.emplace(feature.key, i); !inserted) {
      return InvalidArgumentError("Feature key '", feature.key, "' is used twice (features ",
                                  it->second, " and ", i, ")");
    }
    switch (feature.layout) {
      case FeatureLayout::kFixedLen:
        single.push_back({feature.key, feature.dtype, feature.shape});
        batched.push_back({feature.key, feature.dtype, PartialShape(feature.shape).Prepended(-1)});
        break;
      case FeatureLayout::kVarLen:
        single.push_back({feature.key, feature.dtype, PartialShape{-1}});
        batched.push_back({feature.key, feature.dtype, PartialShape{-1}});
        batched.push_back(
            {feature.key + std::string(kRowLengthsSuffix), DType::kInt64, PartialShape{-1}});
        break;
      case FeatureLayout::kVarLenPadded:
        single.push_back({feature.key, feature.dtype, PartialShape{-1}});
        batched.push_back({feature.key, feature.dtype, PartialShape{-1, -1}});
        break;
    }
  }
  schema.element_spec_ = ElementSpec(std::move(single));
  schema.batched_element_spec_ = ElementSpec(std::move(batched));
  SLUICE_RETURN_IF_ERROR(CheckDistinctComponentNames(schema.batched_element_spec_));
  schema.features_ = std::move(features);
  return schema;
}

Status CheckFixedLenShape(std::string_view feature, DType dtype, const Shape& shape) {
  for (int d = 0; d < shape.rank(); ++d) {
    if (shape.dim(d) < 0) {
      return InvalidArgumentError(feature, " has shape ", shape, ": dimension ", d, " is ", shape.dim(d),
                                  "; a kFixedLen feature needs a fully defined shape (dims >= 0)");
    }
  }
  Result<int64_t> bytes = CheckedNumBytes(dtype, shape);
  return bytes.ok() ? OkStatus() : bytes.status().WithContext(feature);
}

Status CheckDistinctComponentNames(const ElementSpec& spec) {
  std::set<std::string_view> names;
  for (const ComponentSpec& component : spec.components()) {
    if (!names.insert(component.name).second) {
      return InvalidArgumentError("Output component '", component.name,
                                  "' would be produced twice: a feature key clashes with another "
                                  "feature's derived component");
    }
  }
  return OkStatus();
}

}  // namespace sluice

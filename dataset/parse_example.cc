#include "sluice/dataset/parse_example.h"

#include <algorithm>

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"
#include "sluice/tfrecord/example_parser.h"

namespace sluice {
namespace {

using Kind = spec::FeatureSpec::Kind;

Kind LayoutToKind(FeatureLayout layout) {
  switch (layout) {
    case FeatureLayout::kFixedLen: return spec::FeatureSpec::FIXED_LEN;
    case FeatureLayout::kVarLen: return spec::FeatureSpec::VAR_LEN;
    case FeatureLayout::kVarLenPadded: return spec::FeatureSpec::VAR_LEN_PADDED;
  }
  return spec::FeatureSpec::FIXED_LEN;
}

class ParseExampleFunction final : public ElementFunction {
 public:
  ParseExampleFunction(std::string component, std::vector<FeatureConfig> features, ExampleSchema schema)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        features_(std::move(features)),
        parser_(std::make_shared<const ExampleParser>(std::move(schema))),
        name_(StrCat("parse_example(", target_.Prefix(" -> "), features_.size(), " features)")) {}

  std::string name() const override { return name_; }

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(const size_t index, ResolveRecords(target_, name_, input, "Examples"));
    const ComponentSpec& records = input[index];
    const bool batched = records.shape.rank() == 1;
    const bool all_fixed = std::all_of(features_.begin(), features_.end(), [](const FeatureConfig& f) {
      return f.layout == FeatureLayout::kFixedLen;
    });
    auto apply = [parser = parser_, index, size = input.size(), name = name_](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, size, element));
      Result<Element> parsed = parser->Parse(element[index]);
      if (!parsed.ok()) return parsed.status().WithContext(name);
      return parsed;
    };
    return BoundElementFunction{
        .output_spec = batched ? BatchedSpec(records.shape.dim(0)) : parser_->element_spec(),
        .apply = std::move(apply),
        // Parsing a run of k records as a batch equals stacking k parses
        // only when every output has a fixed shape.
        .row_wise = !batched && all_fixed};
  }

  Status ToSpec(spec::ElementFunction* out) const override {
    spec::ParseExample* node = out->mutable_parse_example();
    node->set_component(target_.component());
    for (const FeatureConfig& f : features_) FeatureConfigToSpec(f, node->add_features());
    return OkStatus();
  }

 private:
  // The batched spec, with the batch size where it is known: the leading
  // dim of [N, ...] outputs (FixedLen, padded VarLen, row_lengths).
  ElementSpec BatchedSpec(int64_t batch_size) const {
    std::vector<ComponentSpec> out = parser_->batched_element_spec().components();
    if (batch_size >= 0) {
      size_t c = 0;
      for (const FeatureConfig& f : features_) {
        // Flat VarLen values have no batch dim; their row_lengths do.
        if (f.layout == FeatureLayout::kVarLen) ++c;
        out[c].shape = out[c].shape.WithoutFirstDim().Prepended(batch_size);
        ++c;
      }
    }
    return ElementSpec(std::move(out));
  }

  const ComponentTarget target_;
  const std::vector<FeatureConfig> features_;  // as given, for ToSpec
  const std::shared_ptr<const ExampleParser> parser_;
  const std::string name_;
};

}  // namespace

Result<ElementFunctionPtr> MakeParseExampleFunction(std::string component,
                                                    std::vector<FeatureConfig> features) {
  Result<ExampleSchema> schema = ExampleSchema::Make(features);
  if (!schema.ok()) return schema.status().WithContext("parse_example");
  return ElementFunctionPtr(
      std::make_shared<ParseExampleFunction>(std::move(component), std::move(features), std::move(*schema)));
}

Result<ElementFunctionPtr> ParseExampleFunctionFromSpec(const spec::ParseExample& node) {
  std::vector<FeatureConfig> features;
  for (int i = 0; i < node.features_size(); ++i) {
    const spec::FeatureSpec& f = node.features(i);
    SLUICE_ASSIGN_OR_RETURN(FeatureConfig config,
                            FeatureConfigFromSpec(f, StrCat("parse_example features[", i, "] (", f.key(), ")")));
    features.push_back(std::move(config));
  }
  return MakeParseExampleFunction(node.component(), std::move(features));
}

void FeatureConfigToSpec(const FeatureConfig& feature, spec::FeatureSpec* out) {
  out->set_key(feature.key);
  out->set_kind(LayoutToKind(feature.layout));
  out->set_dtype(std::string(DTypeName(feature.dtype)));
  for (int64_t d : feature.shape.dims()) out->add_shape(d);
  if (feature.default_value.valid()) TensorToProto(feature.default_value, out->mutable_default_value());
}

Result<FeatureConfig> FeatureConfigFromSpec(const spec::FeatureSpec& feature, std::string_view where) {
  FeatureConfig config{.key = feature.key()};
  Result<DType> dtype = ParseDType(feature.dtype().empty() ? "int64" : feature.dtype());
  if (!dtype.ok()) return dtype.status().WithContext(where);
  config.dtype = *dtype;
  switch (feature.kind()) {
    case spec::FeatureSpec::FIXED_LEN: config.layout = FeatureLayout::kFixedLen; break;
    case spec::FeatureSpec::VAR_LEN: config.layout = FeatureLayout::kVarLen; break;
    case spec::FeatureSpec::VAR_LEN_PADDED: config.layout = FeatureLayout::kVarLenPadded; break;
    default: return InvalidArgumentError(where, ": unknown kind ", static_cast<int>(feature.kind()));
  }
  if (feature.shape_size() > kMaxRank) return InvalidArgumentError(where, ": shape rank above ", kMaxRank);
  config.shape = Shape(std::span<const int64_t>(feature.shape().data(), feature.shape().size()));
  if (feature.has_default_value()) {
    Result<Tensor> value = TensorFromProto(feature.default_value());
    if (!value.ok()) return value.status().WithContext(where);
    config.default_value = std::move(*value);
  }
  return config;
}

}  // namespace sluice

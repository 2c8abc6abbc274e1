#include "sluice/dataset/parse_sequence_example.h"

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/parse_example.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/tfrecord/sequence_example_parser.h"

namespace sluice {
namespace {

constexpr std::string_view kFn = "parse_sequence_example";

class ParseSequenceExampleFunction final : public ElementFunction {
 public:
  ParseSequenceExampleFunction(std::string component, SequenceExampleSchema schema)
      : target_(std::move(component), ComponentTarget::WhenEmpty::kOnly),
        parser_(std::make_shared<const SequenceExampleParser>(std::move(schema))),
        name_(StrCat(kFn, "(", target_.Prefix(" -> "), parser_->schema().context().features().size(), " context, ",
                     parser_->schema().sequence_features().size(), " sequence features)")) {}

  std::string name() const override { return name_; }

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    SLUICE_ASSIGN_OR_RETURN(const size_t index, ResolveRecords(target_, name_, input, "SequenceExamples"));
    const ComponentSpec& records = input[index];
    const bool batched = records.shape.rank() == 1;
    auto apply = [parser = parser_, index, size = input.size(), name = name_](Element element) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, size, element));
      Result<Element> parsed = parser->Parse(element[index]);
      if (!parsed.ok()) return parsed.status().WithContext(name);
      return parsed;
    };
    return BoundElementFunction{.output_spec = batched ? parser_->batched_element_spec() : parser_->element_spec(),
                                .apply = std::move(apply)};
  }

  Status ToSpec(spec::ElementFunction* out) const override {
    spec::ParseSequenceExample* node = out->mutable_parse_sequence_example();
    node->set_component(target_.component());
    const SequenceExampleSchema& schema = parser_->schema();
    for (const FeatureConfig& f : schema.context().features()) FeatureConfigToSpec(f, node->add_context_features());
    for (const SequenceFeatureConfig& f : schema.sequence_features()) {
      spec::SequenceFeatureSpec* feature = node->add_sequence_features();
      feature->set_key(f.key);
      feature->set_kind(f.layout == StepLayout::kFixedLen ? spec::SequenceFeatureSpec::FIXED_LEN
                                                          : spec::SequenceFeatureSpec::VAR_LEN);
      feature->set_dtype(std::string(DTypeName(f.dtype)));
      for (int64_t d : f.shape.dims()) feature->add_shape(d);
      feature->set_required(f.required);
    }
    return OkStatus();
  }

 private:
  const ComponentTarget target_;
  const std::shared_ptr<const SequenceExampleParser> parser_;
  const std::string name_;
};

Result<SequenceFeatureConfig> SequenceFeatureFromSpec(const spec::SequenceFeatureSpec& feature,
                                                      std::string_view where) {
  SequenceFeatureConfig config{.key = feature.key(), .required = feature.required()};
  Result<DType> dtype = ParseDType(feature.dtype().empty() ? "int64" : feature.dtype());
  if (!dtype.ok()) return dtype.status().WithContext(where);
  config.dtype = *dtype;
  switch (feature.kind()) {
    case spec::SequenceFeatureSpec::FIXED_LEN: config.layout = StepLayout::kFixedLen; break;
    case spec::SequenceFeatureSpec::VAR_LEN: config.layout = StepLayout::kVarLen; break;
    default: return InvalidArgumentError(where, ": unknown kind ", static_cast<int>(feature.kind()));
  }
  if (feature.shape_size() > kMaxRank) return InvalidArgumentError(where, ": shape rank above ", kMaxRank);
  config.shape = Shape(std::span<const int64_t>(feature.shape().data(), feature.shape().size()));
  return config;
}

}  // namespace

Result<ElementFunctionPtr> MakeParseSequenceExampleFunction(std::string component,
                                                            std::vector<FeatureConfig> context_features,
                                                            std::vector<SequenceFeatureConfig> sequence_features) {
  if (context_features.empty() && sequence_features.empty()) {
    return InvalidArgumentError(kFn, ": no features to parse; give context features, sequence features or both");
  }
  Result<SequenceExampleSchema> schema =
      SequenceExampleSchema::Make(std::move(context_features), std::move(sequence_features));
  if (!schema.ok()) return schema.status().WithContext(kFn);
  return ElementFunctionPtr(std::make_shared<ParseSequenceExampleFunction>(std::move(component), *std::move(schema)));
}

Result<ElementFunctionPtr> ParseSequenceExampleFunctionFromSpec(const spec::ParseSequenceExample& node) {
  std::vector<FeatureConfig> context;
  for (int i = 0; i < node.context_features_size(); ++i) {
    const spec::FeatureSpec& f = node.context_features(i);
    SLUICE_ASSIGN_OR_RETURN(FeatureConfig config,
                            FeatureConfigFromSpec(f, StrCat(kFn, " context_features[", i, "] (", f.key(), ")")));
    context.push_back(std::move(config));
  }
  std::vector<SequenceFeatureConfig> sequence;
  for (int i = 0; i < node.sequence_features_size(); ++i) {
    const spec::SequenceFeatureSpec& f = node.sequence_features(i);
    SLUICE_ASSIGN_OR_RETURN(SequenceFeatureConfig config,
                            SequenceFeatureFromSpec(f, StrCat(kFn, " sequence_features[", i, "] (", f.key(), ")")));
    sequence.push_back(std::move(config));
  }
  return MakeParseSequenceExampleFunction(node.component(), std::move(context), std::move(sequence));
}

}  // namespace sluice

#include "sluice/dataset/scan_dataset.h"

#include <set>

#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/op_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/tensor_proto.h"

namespace sluice {
namespace {

ElementSpec StateSpec(const std::vector<NamedTensor>& state) {
  std::vector<ComponentSpec> components;
  for (const NamedTensor& c : state) components.push_back({c.name, c.tensor.dtype(), c.tensor.shape()});
  return ElementSpec(std::move(components));
}

// The spec fn is applied to: the state's components, then the input's.
ElementSpec StepSpec(const ElementSpec& state, const ElementSpec& input) {
  std::vector<ComponentSpec> components = state.components();
  components.insert(components.end(), input.components().begin(), input.components().end());
  return ElementSpec(std::move(components));
}

// The output's components: those after the new state's.
ElementSpec OutputSpec(const ElementSpec& step_output, size_t state_size) {
  return ElementSpec(std::vector<ComponentSpec>(step_output.components().begin() + state_size,
                                                step_output.components().end()));
}

class ScanDataset final : public Dataset {
 public:
  ScanDataset(DatasetPtr input, ElementFunctionPtr fn, BoundElementFunction bound, ScanOptions options,
              ElementSpec state_spec)
      : Dataset(OutputSpec(bound.output_spec, state_spec.size()), input->cardinality()),
        input_(std::move(input)),
        fn_(std::move(fn)),
        bound_(std::move(bound)),
        options_(std::move(options)),
        state_spec_(std::move(state_spec)) {}

  std::string_view op_name() const override { return "scan"; }
  std::string DebugParams() const override { return StrCat("initial_state=", state_spec_, ", fn=", fn_->name()); }
  std::vector<DatasetPtr> inputs() const override { return {input_}; }
  std::unique_ptr<Iterator> NewIteratorInternal(const IteratorContext& ctx) const override;
  Status ToSpec(spec::Pipeline* pipeline) const override {
    SLUICE_RETURN_IF_ERROR(input_->ToSpec(pipeline));
    auto* node = pipeline->add_ops()->mutable_scan();
    for (const NamedTensor& c : options_.initial_state) NamedTensorToProto(c, node->add_initial_state());
    return fn_->ToSpec(node->mutable_fn());
  }

  const DatasetPtr& input() const { return input_; }
  const BoundElementFunction& fn() const { return bound_; }
  const ElementSpec& state_spec() const { return state_spec_; }
  Element InitialState() const {
    Element state;
    for (const NamedTensor& c : options_.initial_state) state.components.push_back(c.tensor);
    return state;
  }
  StageFunction stage_function() const { return {.name = fn_->name()}; }

 private:
  const DatasetPtr input_;
  const ElementFunctionPtr fn_;       // for name() and ToSpec
  const BoundElementFunction bound_;  // fn_ bound to the state's and input's components
  const ScanOptions options_;
  const ElementSpec state_spec_;
};

class ScanIterator final : public Iterator {
 public:
  ScanIterator(std::shared_ptr<const ScanDataset> dataset, const IteratorContext& ctx)
      : dataset_(std::move(dataset)), input_(dataset_->input()->NewIterator(ctx)), state_(dataset_->InitialState()) {}

 protected:
  Result<std::optional<Element>> GetNextInternal() override {
    SLUICE_ASSIGN_OR_RETURN(std::optional<Element> element, input_->GetNext());
    if (!element) return std::nullopt;
    Element step = state_;
    for (Tensor& t : element->components) step.components.push_back(std::move(t));
    Result<Element> result = dataset_->fn().apply(std::move(step));
    if (!result.ok()) return result.status().WithContext("scan");
    const size_t state_size = state_.size();
    Element new_state;
    new_state.components.assign(result->components.begin(), result->components.begin() + state_size);
    SLUICE_RETURN_IF_ERROR(dataset_->state_spec().Check(new_state).WithContext("scan: the new state"));
    state_ = std::move(new_state);
    Element output;
    output.components.assign(result->components.begin() + state_size, result->components.end());
    return output;
  }

  StageFunction stage_function() const override { return dataset_->stage_function(); }

  Status SaveInternal(IteratorStateWriter& writer) override {
    writer.WriteElement("state", state_);
    return writer.WriteIterator("input", *input_);
  }
  Status RestoreInternal(IteratorStateReader& reader) override {
    SLUICE_ASSIGN_OR_RETURN(state_, reader.ReadElement("state", dataset_->state_spec()));
    return reader.ReadIterator("input", *input_);
  }

 private:
  const std::shared_ptr<const ScanDataset> dataset_;
  const std::unique_ptr<Iterator> input_;
  Element state_;
};

std::unique_ptr<Iterator> ScanDataset::NewIteratorInternal(const IteratorContext& ctx) const {
  return std::make_unique<ScanIterator>(SharedThis<ScanDataset>(), ctx);
}

}  // namespace

Result<DatasetPtr> MakeScanDataset(DatasetPtr input, ElementFunctionPtr fn, ScanOptions options) {
  if (input == nullptr) return InvalidArgumentError("scan: input dataset is null");
  if (fn == nullptr) return InvalidArgumentError("scan: fn is null");
  if (options.initial_state.empty()) {
    return InvalidArgumentError("scan: initial_state is empty (give the state's components)");
  }
  ElementSpec state_spec = StateSpec(options.initial_state);
  const ElementSpec& input_spec = input->element_spec();
  std::set<std::string> names;
  for (const ComponentSpec& c : state_spec.components()) {
    if (!c.name.empty() && !names.insert(c.name).second) {
      return InvalidArgumentError("scan: initial_state has two components named '", c.name, "'");
    }
  }
  for (const ComponentSpec& c : input_spec.components()) {
    if (names.contains(c.name)) {
      return InvalidArgumentError("scan: the state and the input element both have a component named '", c.name,
                                  "' (state ", state_spec, ", input ", input_spec, ")");
    }
  }
  Result<BoundElementFunction> bound = fn->Bind(StepSpec(state_spec, input_spec));
  if (!bound.ok()) return bound.status().WithContext("scan");
  const ElementSpec& out = bound->output_spec;
  if (out.size() <= state_spec.size()) {
    return InvalidArgumentError("scan: ", fn->name(), " returns ", out, ": expected the new state's ",
                                state_spec.size(), " components, then at least one output component");
  }
  for (size_t i = 0; i < state_spec.size(); ++i) {
    if (out[i].dtype != state_spec[i].dtype || !out[i].shape.IsCompatibleWith(state_spec[i].shape)) {
      return InvalidArgumentError("scan: ", fn->name(), "'s new state must match initial_state ", state_spec,
                                  ", but its first components are ", out);
    }
  }
  return Dataset::Make<ScanDataset>(std::move(input), std::move(fn), *std::move(bound), std::move(options),
                                    std::move(state_spec));
}

Result<DatasetPtr> ScanDatasetFromSpec(const spec::DatasetNode& node, const OpSpecContext& context) {
  const spec::Scan& scan = node.scan();
  if (!scan.has_fn()) return InvalidArgumentError("scan has no fn");
  SLUICE_ASSIGN_OR_RETURN(ElementFunctionPtr fn, ElementFunctionFromSpec(scan.fn()));
  SLUICE_ASSIGN_OR_RETURN(std::vector<NamedTensor> initial_state,
                          NamedTensorsFromProto(scan.initial_state(), "initial_state"));
  return MakeScanDataset(context.input(), std::move(fn), {.initial_state = std::move(initial_state)});
}

}  // namespace sluice

#include "sluice/model/model.h"

#include <random>
#include <set>

#include "sluice/model/model.pb.h"

namespace sluice {

ModelNode ModelBuilder::Input(InputSignature signature) {
  SLUICE_CHECK(nodes_.size() == signature_.size()) << "model inputs must come before layers";
  signature_.push_back(std::move(signature));
  nodes_.push_back(Node{});
  return ModelNode{static_cast<int>(nodes_.size()) - 1};
}

ModelNode ModelBuilder::Apply(std::unique_ptr<Layer> layer, std::vector<ModelNode> inputs) {
  Node node{std::move(layer), {}};
  for (ModelNode input : inputs) node.inputs.push_back(input.index);
  nodes_.push_back(std::move(node));
  return ModelNode{static_cast<int>(nodes_.size()) - 1};
}

Result<std::unique_ptr<Model>> ModelBuilder::Build(std::vector<ModelNode> outputs, uint64_t seed,
                                                   std::vector<std::string> output_names) && {
  if (signature_.empty()) return InvalidArgumentError("a model needs at least one input");
  if (outputs.empty()) return InvalidArgumentError("a model needs at least one output");
  std::unique_ptr<Model> model(new Model);
  std::mt19937_64 rng(seed);
  std::vector<LayerInput> shapes;
  std::set<std::string> names;
  for (const InputSignature& input : signature_) {
    if (!names.insert(input.name).second) return InvalidArgumentError("model input '", input.name, "' appears twice");
    shapes.push_back({input.dtype, input.shape});
  }
  for (size_t i = signature_.size(); i < nodes_.size(); ++i) {
    Node& node = nodes_[i];
    if (!names.insert(node.layer->name()).second) {
      return InvalidArgumentError("layer name '", node.layer->name(), "' is used twice; layer names must be unique");
    }
    if (static_cast<int>(node.inputs.size()) != node.layer->num_inputs()) {
      return InvalidArgumentError("layer '", node.layer->name(), "' takes ", node.layer->num_inputs(),
                                  " inputs, got ", node.inputs.size());
    }
    std::vector<LayerInput> inputs;
    for (int input : node.inputs) {
      if (input < 0 || input >= static_cast<int>(i)) {
        return InvalidArgumentError("layer '", node.layer->name(), "' reads a node that is not built before it");
      }
      inputs.push_back(shapes[input]);
    }
    SLUICE_ASSIGN_OR_RETURN(LayerInput output, node.layer->Build(inputs, rng));
    shapes.push_back(output);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].index < 0 || outputs[i].index >= static_cast<int>(nodes_.size())) {
      return InvalidArgumentError("model output ", i, " is not a node of this model");
    }
    model->outputs_.push_back(outputs[i].index);
    model->output_names_.push_back(i < output_names.size() ? output_names[i] : StrCat("output_", i));
  }
  model->signature_ = std::move(signature_);
  model->nodes_ = std::move(nodes_);
  return model;
}

Result<std::unique_ptr<Model>> Model::Sequential(InputSignature input, std::vector<std::unique_ptr<Layer>> layers,
                                                 uint64_t seed) {
  ModelBuilder builder;
  ModelNode node = builder.Input(std::move(input));
  for (auto& layer : layers) node = builder.Apply(std::move(layer), {node});
  return std::move(builder).Build({node}, seed);
}

Result<std::unique_ptr<Model>> Model::FromGraph(const model::ModelGraph& graph) {
  ModelBuilder builder;
  for (const model::InputSignature& input : graph.inputs()) {
    SLUICE_ASSIGN_OR_RETURN(InputSignature signature, InputSignatureFromProto(input));
    builder.Input(std::move(signature));
  }
  for (const model::LayerNode& node : graph.nodes()) {
    SLUICE_ASSIGN_OR_RETURN(std::unique_ptr<Layer> layer, LayerFromConfig(node.layer()));
    std::vector<ModelNode> inputs;
    for (int input : node.inputs()) inputs.push_back(ModelNode{input});
    builder.Apply(std::move(layer), std::move(inputs));
  }
  std::vector<ModelNode> outputs;
  for (int output : graph.outputs()) outputs.push_back(ModelNode{output});
  return std::move(builder).Build(std::move(outputs), /*seed=*/0,
                                  std::vector<std::string>(graph.output_names().begin(), graph.output_names().end()));
}

namespace {

std::string SignatureNames(std::span<const InputSignature> signature) {
  std::string names;
  for (const InputSignature& input : signature) names += StrCat(names.empty() ? "" : ", ", "'", input.name, "'");
  return names;
}

}  // namespace

void InputSignatureToProto(const InputSignature& input, model::InputSignature* out) {
  out->set_name(input.name);
  out->set_dtype(std::string(DTypeName(input.dtype)));
  for (int64_t d : input.shape.dims()) out->add_shape(d);
}

Result<InputSignature> InputSignatureFromProto(const model::InputSignature& input) {
  SLUICE_ASSIGN_OR_RETURN(DType dtype, ParseDType(input.dtype()));
  SLUICE_ASSIGN_OR_RETURN(Shape shape, Shape::FromDims(std::vector<int64_t>(input.shape().begin(), input.shape().end())));
  return InputSignature{input.name(), dtype, shape};
}

Status CheckBatchMatchesSignature(std::span<const InputSignature> signature, std::span<const Tensor> inputs) {
  if (inputs.size() != signature.size()) {
    return InvalidArgumentError("expected ", signature.size(), " inputs (", SignatureNames(signature), "), got ", inputs.size());
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const InputSignature& expected = signature[i];
    const Tensor& got = inputs[i];
    if (got.dtype() != expected.dtype) {
      return InvalidArgumentError("input '", expected.name, "' must be ", expected.dtype,
                                  PartialShape(expected.shape).Prepended(kUnknownDim).ToString(), " (batch first), got ", got.dtype(),
                                  got.shape());
    }
    if (got.rank() != expected.shape.rank() + 1 || got.shape().WithoutFirstDim() != expected.shape) {
      return InvalidArgumentError("input '", expected.name, "' must have shape ",
                                  PartialShape(expected.shape).Prepended(kUnknownDim).ToString(), " (batch first, any batch size), got ",
                                  got.shape());
    }
  }
  return OkStatus();
}

Status Model::CheckInputs(std::span<const Tensor> inputs) const { return CheckBatchMatchesSignature(signature_, inputs); }

Result<std::vector<Tensor>> Model::Call(std::span<const Tensor> inputs, bool training) {
  SLUICE_RETURN_IF_ERROR(CheckInputs(inputs));
  std::vector<Tensor> values(inputs.begin(), inputs.end());
  values.resize(nodes_.size());
  std::vector<Tensor> layer_inputs;
  for (size_t i = signature_.size(); i < nodes_.size(); ++i) {
    layer_inputs.clear();
    for (int input : nodes_[i].inputs) layer_inputs.push_back(values[input]);
    Result<Tensor> output = nodes_[i].layer->Call(layer_inputs, training);
    if (!output.ok()) return output.status().WithContext(StrCat("layer '", nodes_[i].layer->name(), "'"));
    values[i] = *std::move(output);
  }
  std::vector<Tensor> outputs;
  for (int output : outputs_) outputs.push_back(values[output]);
  return outputs;
}

Result<Tensor> Model::CallSingle(std::span<const Tensor> inputs, bool training) {
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, Call(inputs, training));
  return std::move(outputs[0]);
}

std::vector<Variable*> Model::variables() {
  std::vector<Variable*> vars;
  for (Layer* layer : layers()) {
    for (Variable* v : layer->variables()) vars.push_back(v);
  }
  return vars;
}

std::vector<Variable*> Model::trainable_variables() {
  std::vector<Variable*> vars;
  for (Variable* v : variables()) {
    if (v->trainable()) vars.push_back(v);
  }
  return vars;
}

std::vector<Layer*> Model::layers() {
  std::vector<Layer*> layers;
  for (auto& node : nodes_) {
    if (node.layer) layers.push_back(node.layer.get());
  }
  return layers;
}

model::ModelGraph Model::ToGraph() const {
  model::ModelGraph graph;
  for (const InputSignature& input : signature_) InputSignatureToProto(input, graph.add_inputs());
  for (size_t i = signature_.size(); i < nodes_.size(); ++i) {
    model::LayerNode* node = graph.add_nodes();
    nodes_[i].layer->ToConfig(node->mutable_layer());
    for (int input : nodes_[i].inputs) node->add_inputs(input);
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    graph.add_outputs(outputs_[i]);
    graph.add_output_names(output_names_[i]);
  }
  return graph;
}

}  // namespace sluice

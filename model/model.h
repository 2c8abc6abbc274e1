// Model: layers wired into a graph with named inputs, as a Keras functional
// model; Sequential is the chain special case.
//
//   ModelBuilder builder;
//   ModelNode x = builder.Input({"features", DType::kFloat32, Shape{2}});
//   ModelNode h = builder.Apply(std::make_unique<Dense>("hidden", DenseOptions{.units = 16, ...}), {x});
//   ModelNode y = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 1}), {h});
//   auto model = std::move(builder).Build({y}, /*seed=*/42);
//
// Building runs every layer's Build in order (creating the variables from a
// generator seeded with `seed`), so shape errors surface before any data.
// The input signature (name, dtype, per-example shape; the batch dimension is
// dynamic) is enforced on every call: a wrong dtype, rank or feature size is
// InvalidArgument naming the input and both shapes.
// Thread safety: a model is used by one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/model/layer.h"

namespace sluice {

namespace model {
class ModelGraph;      // model/model.proto
class InputSignature;  // model/model.proto
}  // namespace model

struct InputSignature {
  std::string name;
  DType dtype = DType::kFloat32;
  Shape shape;  // per example
};

// The signature as its message in model.proto, and back (InvalidArgument for
// an unknown dtype, a rank over kMaxRank or a negative dim).
void InputSignatureToProto(const InputSignature& input, model::InputSignature* out);
Result<InputSignature> InputSignatureFromProto(const model::InputSignature& input);

// InvalidArgument naming the input when a batch (one tensor per input, in
// signature order, batch first) does not match `signature`.
Status CheckBatchMatchesSignature(std::span<const InputSignature> signature, std::span<const Tensor> inputs);

// A node of a model under construction: an input or a layer's output.
struct ModelNode {
  int index = -1;
};

class Model;

class ModelBuilder {
 public:
  ModelNode Input(InputSignature signature);
  // Applies `layer` to earlier nodes (as many as layer->num_inputs()).
  ModelNode Apply(std::unique_ptr<Layer> layer, std::vector<ModelNode> inputs);
  // The model computing `outputs` (named output_0, ... unless named).
  Result<std::unique_ptr<Model>> Build(std::vector<ModelNode> outputs, uint64_t seed,
                                       std::vector<std::string> output_names = {}) &&;

 private:
  friend class Model;
  struct Node {
    std::unique_ptr<Layer> layer;  // null for an input
    std::vector<int> inputs;
  };
  std::vector<InputSignature> signature_;
  std::vector<Node> nodes_;
};

class Model {
 public:
  // One input feeding a chain of layers (keras.Sequential).
  static Result<std::unique_ptr<Model>> Sequential(InputSignature input,
                                                   std::vector<std::unique_ptr<Layer>> layers, uint64_t seed);
  // The model an exported graph describes, built with fresh weights (load
  // them afterwards).
  static Result<std::unique_ptr<Model>> FromGraph(const model::ModelGraph& graph);

  const std::vector<InputSignature>& inputs() const { return signature_; }
  const std::vector<std::string>& output_names() const { return output_names_; }

  // All outputs for a batch of inputs, in signature order.
  Result<std::vector<Tensor>> Call(std::span<const Tensor> inputs, bool training);
  // The first output, for single-output models.
  Result<Tensor> CallSingle(std::span<const Tensor> inputs, bool training);
  // InvalidArgument naming the input when a batch does not match the
  // signature.
  Status CheckInputs(std::span<const Tensor> inputs) const;

  std::vector<Variable*> variables();
  std::vector<Variable*> trainable_variables();
  std::vector<Layer*> layers();
  model::ModelGraph ToGraph() const;

 private:
  Model() = default;
  friend class ModelBuilder;

  std::vector<InputSignature> signature_;
  std::vector<ModelBuilder::Node> nodes_;  // inputs first
  std::vector<int> outputs_;
  std::vector<std::string> output_names_;
};

}  // namespace sluice

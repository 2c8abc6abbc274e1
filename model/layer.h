// Layer: one building block of a model (Dense, Embedding, Dropout, ...), as
// in Keras. A layer is built once for the shapes of its inputs (which creates
// its variables) and then called on batches; the same layer object applied
// twice shares its weights.
//
// Shapes passed to Build are per example (no batch dimension); Call receives
// batches. `training` switches train-only behaviour (Dropout).
// Thread safety: a layer is used by one thread at a time.
#pragma once

#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sluice/core/tensor.h"
#include "sluice/executor/variable.h"

namespace sluice {

namespace model {
class LayerConfig;  // model/model.proto
}

// What a layer is built with.
struct LayerInput {
  DType dtype;
  Shape shape;  // per example
};

class Layer {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  const std::string& name() const { return name_; }
  // How many tensors Call takes.
  virtual int num_inputs() const { return 1; }

  // Creates the variables for these inputs (initialised from `rng`) and
  // returns the per-example output. InvalidArgument naming the layer for
  // inputs it cannot take.
  virtual Result<LayerInput> Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) = 0;
  // The output for a batch. REQUIRES: built.
  virtual Result<Tensor> Call(std::span<const Tensor> inputs, bool training) = 0;

  // Every variable, in a fixed order (trainable or not).
  virtual std::vector<Variable*> variables() { return {}; }
  // Settings for export (model/model.proto).
  virtual void ToConfig(model::LayerConfig* config) const = 0;

 protected:
  explicit Layer(std::string name) : name_(std::move(name)) {}

 private:
  const std::string name_;
};

// Bounds on a layer's settings, which come from files (an export, a
// training job): a Dense layer's or an embedding's width, and an
// embedding's table (input_dim * output_dim values).
inline constexpr int64_t kMaxLayerUnits = int64_t{1} << 20;
inline constexpr int64_t kMaxLayerParameters = int64_t{1} << 28;

// A layer from its exported settings (built later by the model); empty
// strings and an unset use_bias take DenseOptions' defaults.
Result<std::unique_ptr<Layer>> LayerFromConfig(const model::LayerConfig& config);

}  // namespace sluice

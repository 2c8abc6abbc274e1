// Dense: a fully connected layer, as keras.layers.Dense:
// activation(x · kernel + bias), kernel [in, units], bias [units]. Takes
// float32 inputs of per-example shape [in].
// Thread safety: see model/layer.h.
#pragma once

#include <optional>

#include "sluice/model/activation.h"
#include "sluice/model/initializers.h"
#include "sluice/model/layer.h"

namespace sluice {

struct DenseOptions {
  int64_t units = 1;                         // output width, > 0
  Activation activation = Activation::kLinear;
  bool use_bias = true;
  Initializer kernel_initializer = Initializer::kGlorotUniform;  // bias starts at 0
};

class Dense final : public Layer {
 public:
  Dense(std::string name, DenseOptions options);

  Result<LayerInput> Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) override;
  Result<Tensor> Call(std::span<const Tensor> inputs, bool training) override;
  std::vector<Variable*> variables() override;
  void ToConfig(model::LayerConfig* config) const override;

 private:
  const DenseOptions options_;
  std::optional<Variable> kernel_;
  std::optional<Variable> bias_;
};

}  // namespace sluice

// Embedding: a trainable lookup table, as keras.layers.Embedding: int32 /
// int64 ids of per-example shape S give float32 vectors of shape S +
// [output_dim]. An id outside [0, input_dim) is an InvalidArgument error
// naming it. Id 0 is an ordinary row; MaskedMeanPooling treats it as padding.
// Thread safety: see model/layer.h.
#pragma once

#include <optional>

#include "sluice/model/layer.h"

namespace sluice {

struct EmbeddingOptions {
  int64_t input_dim = 1;   // vocabulary size, > 0
  int64_t output_dim = 1;  // vector width, > 0
};

class Embedding final : public Layer {
 public:
  Embedding(std::string name, EmbeddingOptions options);

  Result<LayerInput> Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) override;
  Result<Tensor> Call(std::span<const Tensor> inputs, bool training) override;
  std::vector<Variable*> variables() override;
  void ToConfig(model::LayerConfig* config) const override;

 private:
  const EmbeddingOptions options_;
  std::optional<Variable> table_;
};

}  // namespace sluice

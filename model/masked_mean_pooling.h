// MaskedMeanPooling: averages a padded sequence of vectors over its real
// steps, as keras.layers.GlobalAveragePooling1D after an Embedding with
// mask_zero=True. Two inputs: the vectors [T, D] (float32) and the ids they
// came from [T] (int32 / int64; id 0 is padding). Output [D]; a sequence of
// only padding gives zeros.
// Thread safety: see model/layer.h.
#pragma once

#include "sluice/model/layer.h"

namespace sluice {

class MaskedMeanPooling final : public Layer {
 public:
  explicit MaskedMeanPooling(std::string name) : Layer(std::move(name)) {}

  int num_inputs() const override { return 2; }
  Result<LayerInput> Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) override;
  Result<Tensor> Call(std::span<const Tensor> inputs, bool training) override;
  void ToConfig(model::LayerConfig* config) const override;
};

}  // namespace sluice

// DropoutLayer: keras.layers.Dropout. In training, zeroes each value with
// probability `rate` and scales the rest by 1 / (1 - rate); in inference it
// is the identity. Each training call draws a fresh mask from (the seed given
// at build, the number of calls so far), so a run restored from a checkpoint
// (which saves that count) drops the same values as the uninterrupted run.
// Thread safety: see model/layer.h.
#pragma once

#include "sluice/model/layer.h"

namespace sluice {

class DropoutLayer final : public Layer {
 public:
  // REQUIRES: 0 <= rate < 1.
  DropoutLayer(std::string name, double rate);

  Result<LayerInput> Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) override;
  Result<Tensor> Call(std::span<const Tensor> inputs, bool training) override;
  void ToConfig(model::LayerConfig* config) const override;

  // The RNG position, for checkpoints.
  int64_t calls() const { return calls_; }
  void set_calls(int64_t calls) { calls_ = calls; }

 private:
  const double rate_;
  uint64_t seed_ = 0;
  int64_t calls_ = 0;
};

}  // namespace sluice

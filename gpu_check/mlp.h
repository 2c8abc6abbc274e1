// The MLP that the GPU check trains and the GPU benchmark times, written
// with Sluice's public ops, GradientTape and optimizers, so the same code
// runs on the host and on a GPU: Dense layers (relu between), sparse
// softmax cross-entropy on the logits, one optimizer step per batch.
// Thread safety: one thread per Mlp.
#pragma once

#include <cstdint>
#include <vector>

#include "sluice/executor/variable.h"
#include "sluice/model/optimizer.h"

namespace sluice {

class Mlp {
 public:
  // widths: input, hidden..., classes. Weights from a fixed-seed Glorot
  // uniform draw (the same values on every device), biases zero.
  Mlp(const std::vector<int64_t>& widths, uint64_t seed, Device device);

  Result<Tensor> Logits(const Tensor& x) const;
  // One training step; returns the batch's mean loss (a scalar tensor on the
  // device, not waited for).
  Result<Tensor> TrainStep(Optimizer& optimizer, const Tensor& x, const Tensor& labels);

  const std::vector<Variable*>& variables() const { return pointers_; }

 private:
  std::vector<Variable> variables_;  // kernel, bias per layer
  std::vector<Variable*> pointers_;
};

// A batch of `rows` random features (normal) and labels in [0, classes),
// on the host.
std::pair<Tensor, Tensor> RandomBatch(int64_t rows, int64_t features, int64_t classes, uint64_t seed);

}  // namespace sluice

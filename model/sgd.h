// SGD with optional momentum, as keras.optimizers.SGD:
//   velocity = momentum * velocity - lr * g;  w += velocity
// (Nesterov: w += momentum * velocity - lr * g). Without momentum no slot.
// Thread safety: see model/optimizer.h.
#pragma once

#include "sluice/model/optimizer.h"

namespace sluice {

struct SgdOptions {
  double momentum = 0;  // in [0, 1)
  bool nesterov = false;
};

class Sgd final : public Optimizer {
 public:
  Sgd(OptimizerOptions options, SgdOptions sgd = {});
  std::string_view name() const override { return "SGD"; }

 protected:
  std::vector<std::string> slot_names() const override;
  void Update(Variable& variable, const Tensor& gradient, std::span<Variable> slots, double learning_rate,
              int64_t step) override;

 private:
  const SgdOptions sgd_;
};

}  // namespace sluice

// Adam and AdamW, as keras.optimizers.Adam / AdamW:
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g²
//   w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)
// AdamW first decays the weights: w -= lr * weight_decay * w (decoupled).
// Thread safety: see model/optimizer.h.
#pragma once

#include "sluice/model/optimizer.h"

namespace sluice {

struct AdamOptions {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;      // Keras' default
  double weight_decay = 0;    // > 0 makes it AdamW
};

class Adam final : public Optimizer {
 public:
  Adam(OptimizerOptions options, AdamOptions adam = {});
  std::string_view name() const override { return adam_.weight_decay > 0 ? "AdamW" : "Adam"; }

 protected:
  std::vector<std::string> slot_names() const override { return {"m", "v"}; }
  void Update(Variable& variable, const Tensor& gradient, std::span<Variable> slots, double learning_rate,
              int64_t step) override;

 private:
  const AdamOptions adam_;
};

}  // namespace sluice

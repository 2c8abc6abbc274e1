#include "model/adam.h"

#include <cmath>

#include "ops/op_checks.h"

namespace sluice {

Adam::Adam(OptimizerOptions options, AdamOptions adam) : Optimizer(std::move(options)), adam_(adam) {
  SLUICE_CHECK(adam.beta_1 >= 0 && adam.beta_1 < 1 && adam.beta_2 >= 0 && adam.beta_2 < 1 && adam.epsilon > 0 &&
               adam.weight_decay >= 0)
      << "Adam: betas in [0, 1), epsilon > 0, weight_decay >= 0";
}

void Adam::Update(Variable& variable, const Tensor& gradient, std::span<Variable> slots, double learning_rate,
                  int64_t step) {
  const double t = static_cast<double>(step);
  const double alpha = learning_rate * std::sqrt(1 - std::pow(adam_.beta_2, t)) / (1 - std::pow(adam_.beta_1, t));
  VisitFloating(gradient.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* w = variable.mutable_value().mutable_data<T>();
    T* m = slots[0].mutable_value().mutable_data<T>();
    T* v = slots[1].mutable_value().mutable_data<T>();
    const T* g = gradient.data<T>();
    const T b1 = static_cast<T>(adam_.beta_1), b2 = static_cast<T>(adam_.beta_2);
    const T eps = static_cast<T>(adam_.epsilon), step_size = static_cast<T>(alpha);
    const T decay = static_cast<T>(learning_rate * adam_.weight_decay);
    for (int64_t i = 0, n = gradient.NumElements(); i < n; ++i) {
      if (adam_.weight_decay > 0) w[i] -= decay * w[i];
      m[i] = b1 * m[i] + (T(1) - b1) * g[i];
      v[i] = b2 * v[i] + (T(1) - b2) * g[i] * g[i];
      w[i] -= step_size * m[i] / (std::sqrt(v[i]) + eps);
    }
  });
}

}  // namespace sluice

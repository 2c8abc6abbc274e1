#include "sluice/model/adam.h"

#include <cmath>

#include "sluice/model/fused_updates.h"
#include "sluice/ops/op_checks.h"
#include "sluice/ops/parallel_for.h"

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
  if (variable.value().device().type == DeviceType::kCuda) {
    const Status status = AdamUpdateOnDevice(variable.mutable_value(), slots[0].mutable_value(), slots[1].mutable_value(),
                                             gradient,
                                             {.step_size = alpha,
                                              .beta_1 = adam_.beta_1,
                                              .beta_2 = adam_.beta_2,
                                              .epsilon = adam_.epsilon,
                                              .decay = learning_rate * adam_.weight_decay});
    SLUICE_CHECK(status.ok()) << "Adam update of '" << variable.name() << "': " << status.ToString();
    return;
  }
  VisitFloating(gradient.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* w = variable.mutable_value().mutable_data<T>();
    T* m = slots[0].mutable_value().mutable_data<T>();
    T* v = slots[1].mutable_value().mutable_data<T>();
    const T* g = gradient.data<T>();
    const T b1 = static_cast<T>(adam_.beta_1), b2 = static_cast<T>(adam_.beta_2);
    const T eps = static_cast<T>(adam_.epsilon), step_size = static_cast<T>(alpha);
    const T decay = static_cast<T>(learning_rate * adam_.weight_decay);
    const bool decays = adam_.weight_decay > 0;
    auto update = [&](int64_t i) {
      if (decays) w[i] -= decay * w[i];
      m[i] = b1 * m[i] + (T(1) - b1) * g[i];
      v[i] = b2 * v[i] + (T(1) - b2) * g[i] * g[i];
      w[i] -= step_size * m[i] / (std::sqrt(v[i]) + eps);
    };
    // Blocks of kLanes through locals: the compiler cannot prove that w, m,
    // v and g do not overlap, so the plain loop stays scalar; this one
    // vectorises (sqrt included, as adam.cc is built with -fno-math-errno).
    // Same arithmetic in the same order, so the same values.
    constexpr int kLanes = 8;
    ParallelFor(gradient.NumElements(), kParallelGrain, [&](int64_t begin, int64_t end) {
      int64_t i = begin;
      if (!decays) {
        for (; i + kLanes <= end; i += kLanes) {
          T m_new[kLanes], v_new[kLanes], w_new[kLanes];
          for (int j = 0; j < kLanes; ++j) {
            const T gj = g[i + j];
            m_new[j] = b1 * m[i + j] + (T(1) - b1) * gj;
            v_new[j] = b2 * v[i + j] + (T(1) - b2) * gj * gj;
            w_new[j] = w[i + j] - step_size * m_new[j] / (std::sqrt(v_new[j]) + eps);
          }
          for (int j = 0; j < kLanes; ++j) {
            m[i + j] = m_new[j];
            v[i + j] = v_new[j];
            w[i + j] = w_new[j];
          }
        }
      }
      for (; i < end; ++i) update(i);
    });
  });
}

}  // namespace sluice

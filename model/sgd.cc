#include "sluice/model/sgd.h"

#include "sluice/model/fused_updates.h"
#include "sluice/ops/op_checks.h"

namespace sluice {

Sgd::Sgd(OptimizerOptions options, SgdOptions sgd) : Optimizer(std::move(options)), sgd_(sgd) {
  SLUICE_CHECK(sgd.momentum >= 0 && sgd.momentum < 1) << "SGD: momentum must be in [0, 1)";
}

std::vector<std::string> Sgd::slot_names() const {
  if (sgd_.momentum == 0) return {};
  return {"momentum"};
}

void Sgd::Update(Variable& variable, const Tensor& gradient, std::span<Variable> slots, double learning_rate,
                 int64_t) {
  if (variable.value().device().type == DeviceType::kCuda) {
    const Status status =
        SgdUpdateOnDevice(variable.mutable_value(), gradient, slots.empty() ? nullptr : &slots[0].mutable_value(),
                          {.learning_rate = learning_rate, .momentum = sgd_.momentum, .nesterov = sgd_.nesterov});
    SLUICE_CHECK(status.ok()) << "SGD update of '" << variable.name() << "': " << status.ToString();
    return;
  }
  VisitFloating(gradient.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* w = variable.mutable_value().mutable_data<T>();
    const T* g = gradient.data<T>();
    const int64_t n = gradient.NumElements();
    const T lr = static_cast<T>(learning_rate);
    if (slots.empty()) {
      for (int64_t i = 0; i < n; ++i) w[i] -= lr * g[i];
      return;
    }
    const T momentum = static_cast<T>(sgd_.momentum);
    T* v = slots[0].mutable_value().mutable_data<T>();
    for (int64_t i = 0; i < n; ++i) {
      v[i] = momentum * v[i] - lr * g[i];
      w[i] += sgd_.nesterov ? momentum * v[i] - lr * g[i] : v[i];
    }
  });
}

}  // namespace sluice

#include "sluice/model/optimizer.h"

#include <cmath>

#include "sluice/executor/device_copy.h"
#include "sluice/model/fused_updates.h"
#include "sluice/ops/binary_ops.h"
#include "sluice/ops/device_backend.h"
#include "sluice/ops/op_checks.h"

namespace sluice {
namespace {

// The sum of the squares of a float32 / float64 tensor's values, in double.
// Eight independent partial sums, so the loop vectorises (a single running
// sum is a serial dependency the compiler may not reorder); NaN and Inf
// propagate into the result.
double SumOfSquares(const Tensor& tensor) {
  return VisitFloating(tensor.dtype(), [&](auto zero) {
    using T = decltype(zero);
    constexpr int kLanes = 8;
    const T* v = tensor.data<T>();
    const int64_t n = tensor.NumElements();
    double lanes[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) lanes[j] += static_cast<double>(v[i + j]) * static_cast<double>(v[i + j]);
    }
    for (; i < n; ++i) lanes[0] += static_cast<double>(v[i]) * static_cast<double>(v[i]);
    double sum = 0;
    for (double lane : lanes) sum += lane;
    return sum;
  });
}

// Each gradient's sum of squares; on a GPU with one wait for all of them.
// REQUIRES: every gradient on one device.
Result<std::vector<double>> SumsOfSquares(std::span<const Tensor> gradients) {
  if (!gradients.empty() && gradients[0].device().type == DeviceType::kCuda) {
    return SumsOfSquaresOnDevice(gradients);
  }
  std::vector<double> sums;
  for (const Tensor& gradient : gradients) sums.push_back(SumOfSquares(gradient));
  return sums;
}

// gradient * scale, on the gradient's device.
Result<Tensor> Scaled(const Tensor& gradient, double scale) {
  if (gradient.device().type == DeviceType::kCuda) {
    Tensor factor = VisitFloating(gradient.dtype(), [&](auto zero) {
      using T = decltype(zero);
      return Tensor::Scalar<T>(static_cast<T>(scale));
    });
    SLUICE_ASSIGN_OR_RETURN(factor, ConstantLike(factor, gradient));
    return Mul(gradient, factor);
  }
  Tensor scaled = gradient.Clone();
  VisitFloating(scaled.dtype(), [&](auto zero) {
    using T = decltype(zero);
    T* g = scaled.mutable_data<T>();
    for (int64_t j = 0, n = scaled.NumElements(); j < n; ++j) g[j] = static_cast<T>(g[j] * scale);
  });
  return scaled;
}

}  // namespace

Optimizer::Optimizer(OptimizerOptions options) : options_(std::move(options)) {
  SLUICE_CHECK(options_.learning_rate != nullptr) << "an optimizer needs a learning-rate schedule";
}

std::vector<Variable>& Optimizer::SlotsFor(const Variable& variable) {
  auto [slots, inserted] = slots_.try_emplace(variable.name());
  if (inserted) {
    for (const std::string& slot : slot_names()) {
      // On the variable's device (the copy there aborts only when it is out of memory).
      Tensor zeros = Tensor::Allocate(variable.value().dtype(), variable.value().shape());
      zeros = ToDevice(zeros, variable.value().device()).value();
      slots->second.emplace_back(variable.name() + "/" + slot, zeros, /*trainable=*/false);
    }
    slot_order_.push_back(variable.name());
  }
  return slots->second;
}

void Optimizer::Build(std::span<Variable* const> variables) {
  for (Variable* variable : variables) SlotsFor(*variable);
}

std::vector<Variable*> Optimizer::slot_variables() {
  std::vector<Variable*> all;
  for (const std::string& name : slot_order_) {
    for (Variable& slot : slots_.at(name)) all.push_back(&slot);
  }
  return all;
}

Status Optimizer::Apply(std::span<Variable* const> variables, std::span<const Tensor> gradients) {
  if (variables.size() != gradients.size()) {
    return InvalidArgumentError(name(), ": ", variables.size(), " variables but ", gradients.size(), " gradients");
  }
  for (size_t i = 0; i < variables.size(); ++i) {
    const Tensor& value = variables[i]->value();
    if (gradients[i].dtype() != value.dtype() || gradients[i].shape() != value.shape() ||
        (value.dtype() != DType::kFloat32 && value.dtype() != DType::kFloat64)) {
      return InvalidArgumentError(name(), ": the gradient of '", variables[i]->name(), "' is ", gradients[i].dtype(),
                                  gradients[i].shape(), " but the variable is ", value.dtype(), value.shape());
    }
  }
  // One pass per gradient gives both the norm and the finiteness check: a
  // NaN or Inf anywhere makes its sum of squares non-finite, and only then
  // is the gradient scanned again for the error message.
  SLUICE_ASSIGN_OR_RETURN(const std::vector<double> squares, SumsOfSquares(gradients));
  double sum_of_squares = 0;
  for (size_t i = 0; i < variables.size(); ++i) {
    if (!std::isfinite(squares[i])) {
      SLUICE_ASSIGN_OR_RETURN(const Tensor host_gradient, ToHost(gradients[i]));
      SLUICE_RETURN_IF_ERROR(CheckFinite(host_gradient, StrCat("the gradient of '", variables[i]->name(), "'")));
    }
    sum_of_squares += squares[i];
  }
  last_global_norm_ = std::sqrt(sum_of_squares);
  double scale = 1;
  if (options_.clip_global_norm && last_global_norm_ > *options_.clip_global_norm) {
    scale = *options_.clip_global_norm / last_global_norm_;
  }
  const double rate = learning_rate();
  ++iterations_;
  for (size_t i = 0; i < variables.size(); ++i) {
    Tensor gradient = gradients[i];
    if (scale != 1) {
      SLUICE_ASSIGN_OR_RETURN(gradient, Scaled(gradients[i], scale));
    }
    Update(*variables[i], gradient, SlotsFor(*variables[i]), rate, iterations_);
  }
  return OkStatus();
}

double GlobalNorm(std::span<const Tensor> tensors) {
  double sum = 0;
  for (const Tensor& t : tensors) sum += SumOfSquares(t);
  return std::sqrt(sum);
}

Status CheckFinite(const Tensor& tensor, std::string_view what) {
  if (tensor.dtype() != DType::kFloat32 && tensor.dtype() != DType::kFloat64) return OkStatus();
  return VisitFloating(tensor.dtype(), [&](auto zero) -> Status {
    using T = decltype(zero);
    const T* v = tensor.data<T>();
    for (int64_t i = 0, n = tensor.NumElements(); i < n; ++i) {
      if (!std::isfinite(v[i])) {
        return InvalidArgumentError(what, " holds ", std::isnan(v[i]) ? "NaN" : "Inf", " at index ", i, " (shape ",
                                    tensor.shape(), ")");
      }
    }
    return OkStatus();
  });
}

}  // namespace sluice

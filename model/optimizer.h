// Optimizer: applies gradients to variables, as keras.optimizers: one Apply
// per training step, a learning-rate schedule read at the step count, and
// optional global-norm gradient clipping (Keras' global_clipnorm) before the
// update. Slot variables ("dense/kernel/m", ...) are created on first use
// and are part of a checkpoint, as is the step count.
//
// Updates write the variables in place (Variable::mutable_value), in float32
// or float64, on the variables' device: the CPU, or a GPU with one fused
// kernel per variable (model/fused_updates.h) and slots made on that GPU.
// Thread safety: used by one thread at a time.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sluice/executor/variable.h"
#include "sluice/model/learning_rate_schedule.h"

namespace sluice {

struct OptimizerOptions {
  std::shared_ptr<const LearningRateSchedule> learning_rate;  // required
  // When set, gradients are scaled by min(1, clip / global_norm) first.
  std::optional<double> clip_global_norm;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  virtual std::string_view name() const = 0;

  // One update: gradients[i] for variables[i] (same dtype and shape).
  // InvalidArgument naming the variable on a mismatch, or when a gradient
  // holds NaN or Inf (nothing is updated then).
  Status Apply(std::span<Variable* const> variables, std::span<const Tensor> gradients);
  // Creates the slots for these variables without updating them (before a
  // checkpoint restore).
  void Build(std::span<Variable* const> variables);

  int64_t iterations() const { return iterations_; }
  void set_iterations(int64_t iterations) { iterations_ = iterations; }
  double learning_rate() const { return (*options_.learning_rate)(iterations_); }
  // The global norm of the last Apply's gradients, before clipping.
  double last_global_norm() const { return last_global_norm_; }
  // Every slot variable, in variable order then slot order.
  std::vector<Variable*> slot_variables();

 protected:
  explicit Optimizer(OptimizerOptions options);
  // Slot names, e.g. {"m", "v"}; each slot starts at zeros like its variable.
  virtual std::vector<std::string> slot_names() const = 0;
  // Updates `variable` from `gradient` (already clipped); `step` is 1 for
  // the first update.
  virtual void Update(Variable& variable, const Tensor& gradient, std::span<Variable> slots, double learning_rate,
                      int64_t step) = 0;

 private:
  std::vector<Variable>& SlotsFor(const Variable& variable);

  const OptimizerOptions options_;
  int64_t iterations_ = 0;
  double last_global_norm_ = 0;
  std::map<std::string, std::vector<Variable>> slots_;  // by variable name
  std::vector<std::string> slot_order_;                  // variable names, first use order
};

// The global L2 norm of `tensors` (float32 / float64), as tf.linalg.global_norm.
double GlobalNorm(std::span<const Tensor> tensors);
// InvalidArgument naming `what` when `tensor` holds a NaN or Inf, with the
// first bad index.
Status CheckFinite(const Tensor& tensor, std::string_view what);

}  // namespace sluice

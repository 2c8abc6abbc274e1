// Learning-rate schedules, as keras.optimizers.schedules: the rate as a
// function of the optimizer's step (0 for the first update).
//  - ConstantLearningRate(lr)
//  - StepDecay(lr, step_size, gamma): lr * gamma^floor(step / step_size)
//  - CosineDecay(lr, decay_steps, alpha): lr * ((1 - alpha) * c + alpha),
//    c = (1 + cos(pi * min(step, decay_steps) / decay_steps)) / 2
// Thread safety: immutable.
#pragma once

#include <cstdint>
#include <memory>

namespace sluice {

class LearningRateSchedule {
 public:
  virtual ~LearningRateSchedule() = default;
  virtual double operator()(int64_t step) const = 0;
};

class ConstantLearningRate final : public LearningRateSchedule {
 public:
  explicit ConstantLearningRate(double rate) : rate_(rate) {}
  double operator()(int64_t) const override { return rate_; }

 private:
  const double rate_;
};

class StepDecay final : public LearningRateSchedule {
 public:
  // REQUIRES: step_size > 0.
  StepDecay(double initial_rate, int64_t step_size, double gamma);
  double operator()(int64_t step) const override;

 private:
  const double initial_rate_;
  const int64_t step_size_;
  const double gamma_;
};

class CosineDecay final : public LearningRateSchedule {
 public:
  // REQUIRES: decay_steps > 0, 0 <= alpha <= 1.
  CosineDecay(double initial_rate, int64_t decay_steps, double alpha = 0.0);
  double operator()(int64_t step) const override;

 private:
  const double initial_rate_;
  const int64_t decay_steps_;
  const double alpha_;
};

}  // namespace sluice

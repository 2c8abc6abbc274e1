#include "sluice/model/learning_rate_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "sluice/core/logging.h"

namespace sluice {

StepDecay::StepDecay(double initial_rate, int64_t step_size, double gamma)
    : initial_rate_(initial_rate), step_size_(step_size), gamma_(gamma) {
  SLUICE_CHECK(step_size > 0) << "StepDecay: step_size must be > 0";
}

double StepDecay::operator()(int64_t step) const {
  return initial_rate_ * std::pow(gamma_, static_cast<double>(step / step_size_));
}

CosineDecay::CosineDecay(double initial_rate, int64_t decay_steps, double alpha)
    : initial_rate_(initial_rate), decay_steps_(decay_steps), alpha_(alpha) {
  SLUICE_CHECK(decay_steps > 0 && alpha >= 0 && alpha <= 1) << "CosineDecay: decay_steps > 0, alpha in [0, 1]";
}

double CosineDecay::operator()(int64_t step) const {
  const double progress = static_cast<double>(std::min(step, decay_steps_)) / static_cast<double>(decay_steps_);
  const double cosine = 0.5 * (1 + std::cos(std::numbers::pi * progress));
  return initial_rate_ * ((1 - alpha_) * cosine + alpha_);
}

}  // namespace sluice

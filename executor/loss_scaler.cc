#include "sluice/executor/loss_scaler.h"

#include <algorithm>

#include "sluice/core/logging.h"

namespace sluice {

LossScaler::LossScaler(LossScalerOptions options) : options_(options), scale_(options.initial_scale) {
  SLUICE_CHECK(options.min_scale > 0 && options.min_scale <= options.initial_scale &&
               options.initial_scale <= options.max_scale && options.growth_factor > 1 &&
               options.backoff_factor > 0 && options.backoff_factor < 1 && options.growth_interval >= 1)
      << "LossScaler: needs 0 < min_scale <= initial_scale <= max_scale, growth_factor > 1, "
         "0 < backoff_factor < 1 and growth_interval >= 1";
}

bool LossScaler::Update(bool gradients_finite) {
  if (!gradients_finite) {
    scale_ = std::max(scale_ * options_.backoff_factor, options_.min_scale);
    good_steps_ = 0;
    ++skipped_steps_;
    return false;
  }
  if (++good_steps_ >= options_.growth_interval) {
    scale_ = std::min(scale_ * options_.growth_factor, options_.max_scale);
    good_steps_ = 0;
  }
  return true;
}

}  // namespace sluice

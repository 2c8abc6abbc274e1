// LossScaler: dynamic loss scaling for float16 training (the mixed
// precision policy that keeps float32 master weights and computes in
// float16). The loss is multiplied by scale() before the backward pass so
// that small gradients survive float16; gradients are divided by it before
// the update. A step whose gradients overflowed (inf or NaN) is skipped and
// the scale lowered; after growth_interval good steps in a row it is
// raised. The scale stays within [min_scale, max_scale]. Pure host logic,
// the same state machine as torch.cuda.amp.GradScaler.
// Thread safety: not thread-safe; one training loop owns it.
#pragma once

#include <cstdint>

namespace sluice {

struct LossScalerOptions {
  double initial_scale = 65536;  // 2^16
  double growth_factor = 2;      // scale *= this after growth_interval good steps
  double backoff_factor = 0.5;   // scale *= this after an overflow
  int64_t growth_interval = 2000;
  double min_scale = 1;
  double max_scale = 16777216;  // 2^24
};

class LossScaler {
 public:
  // REQUIRES: 0 < min_scale <= initial_scale <= max_scale, growth_factor > 1,
  // 0 < backoff_factor < 1, growth_interval >= 1 (checked: a programming error).
  explicit LossScaler(LossScalerOptions options = {});

  double scale() const { return scale_; }
  // Reports the step's gradients (after the backward pass of a scaled loss).
  // Returns whether to apply the step: false when they overflowed.
  bool Update(bool gradients_finite);

  int64_t good_steps_in_a_row() const { return good_steps_; }
  int64_t skipped_steps() const { return skipped_steps_; }

 private:
  const LossScalerOptions options_;
  double scale_;
  int64_t good_steps_ = 0;
  int64_t skipped_steps_ = 0;
};

}  // namespace sluice

// torchvision's automatic augmentation policies as random image functions
// (for map): AutoAugment's learned policies, RandAugment (DeiT's and timm's
// recipes) and TrivialAugmentWide. Each element draws its ops, magnitudes and signs from
// its own stream (dataset/image_functions.h's RandomSource: the same at any
// parallelism and after a restore) and applies them as torchvision's
// _apply_op does (ops/auto_augment.h): uint8 HWC images, one or three
// channels, [H, W, C] or a batch [N, H, W, C] changed alike; same dtype and
// shape out. Spec messages AutoAugment, RandAugment and TrivialAugmentWide.
// Thread safety: the functions made are immutable.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/ops/affine_image.h"
#include "sluice/ops/auto_augment.h"

namespace sluice {

namespace spec {
class ElementFunction;
}  // namespace spec

// torchvision's AutoAugment(policy, interpolation, fill): one of the
// policy's 25 sub-policies drawn uniformly (draw 0); each of its two steps
// applied when its draw (1, 2) is at most the step's probability, at the
// step's magnitude bin of 10 of RandAugment's space, negated on its draw
// (3, 4) below 0.5 where the op is signed.
struct AutoAugmentOptions {
  AutoAugmentPolicy policy = AutoAugmentPolicy::kImageNet;
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  std::vector<float> fill;  // empty: 0; else one, or one per channel, in [0, 255]
  RandomSource random;
};
Result<ElementFunctionPtr> MakeAutoAugmentFunction(std::string component, AutoAugmentOptions options);

// torchvision's RandAugment(num_ops, magnitude, num_magnitude_bins,
// interpolation, fill): num_ops times, an op of its 14 drawn uniformly, at
// magnitude bin `magnitude` of its space, the sign drawn where the op has
// one.
struct RandAugmentOptions {
  int64_t num_ops = 2;              // in [0, 64]
  int64_t magnitude = 9;            // in [0, num_magnitude_bins)
  int64_t num_magnitude_bins = 31;  // in [2, 1024]
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  std::vector<float> fill;  // empty: 0; else one, or one per channel, in [0, 255]
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandAugmentFunction(std::string component, RandAugmentOptions options);

// torchvision's TrivialAugmentWide(num_magnitude_bins, interpolation,
// fill): one op drawn uniformly, its magnitude bin drawn uniformly, the sign
// drawn where the op has one.
struct TrivialAugmentWideOptions {
  int64_t num_magnitude_bins = 31;  // in [2, 1024]
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  std::vector<float> fill;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeTrivialAugmentWideFunction(std::string component, TrivialAugmentWideOptions options);

// The function an AutoAugment, RandAugment or TrivialAugmentWide spec
// message describes.
Result<ElementFunctionPtr> AutoAugmentFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice

// torchvision's automatic augmentation policies as random image functions
// (for map): AutoAugment's learned policies, RandAugment (DeiT's and timm's
// recipes), TrivialAugmentWide and AugMix. Each element draws its ops, magnitudes and signs from
// its own stream (dataset/image_functions.h's RandomSource: the same at any
// parallelism and after a restore) and applies them as torchvision's
// _apply_op does (ops/auto_augment.h): uint8 HWC images, one or three
// channels, [H, W, C] or a batch [N, H, W, C] changed alike; same dtype and
// shape out. Spec messages AutoAugment, RandAugment, TrivialAugmentWide and
// AugMix.
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

// torchvision's AugMix(severity, mixture_width, chain_depth, alpha,
// all_ops, interpolation, fill) (Hendrycks et al.): mixture_width chains of
// 1 to 3 ops (drawn; chain_depth ops when it is positive), each op drawn
// uniformly from AugMix's space (its last four only with all_ops) at a bin
// drawn from [0, severity) of 10, sign drawn; the image is
// m0 * image + sum_i w_i * chain_i(image) in float32, truncated to uint8,
// where (m0, m1) ~ Dirichlet(alpha, alpha) and w = Dirichlet(alpha, ...,
// alpha) * m1. Chain i draws from 64 * i (its depth, then op, bin and sign
// per step); image j of a batch draws its weights from 1024 + 8192 * j
// (Gamma draws by Marsaglia and Tsang, ops/mixup.h) and shares the chains,
// as torchvision's batch does.
struct AugMixOptions {
  int64_t severity = 3;       // in [1, 10]
  int64_t mixture_width = 3;  // in [1, 16]
  int64_t chain_depth = -1;   // -1: 1 to 3 ops a chain, drawn; else in [1, 16]
  double alpha = 1;           // > 0, finite
  bool all_ops = true;
  WarpInterpolation interpolation = WarpInterpolation::kBilinear;
  std::vector<float> fill;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeAugMixFunction(std::string component, AugMixOptions options);

// The function an AutoAugment, RandAugment, TrivialAugmentWide or AugMix
// spec message describes.
Result<ElementFunctionPtr> AutoAugmentFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice

// The operations of torchvision's AutoAugment family (AutoAugment,
// RandAugment, TrivialAugmentWide, AugMix), each applied as its _apply_op applies
// it to a uint8 image tensor, the magnitudes its augmentation spaces give
// them, and AutoAugment's learned sub-policies: what
// dataset/auto_augment_functions.h draws from.
// Images are uint8 HWC, [H, W, C] or a batch [N, H, W, C] changed alike.
// Thread safety: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/affine_image.h"

namespace sluice {

enum class AugmentOp {
  kIdentity,
  kShearX,  // affine shear by atan(m) about the top-left corner
  kShearY,
  kTranslateX,  // by int(m) pixels
  kTranslateY,
  kRotate,      // by m degrees counter-clockwise about the centre
  kBrightness,  // ops/blend_image.h with factor 1 + m
  kColor,       // saturation
  kContrast,
  kSharpness,
  kPosterize,  // int(m) bits (ops/tone_curve.h)
  kSolarize,   // threshold m (ops/solarize.h)
  kAutoContrast,
  kEqualize,
  kInvert,  // 255 - v
};

// torchvision's name of the op ("ShearX").
std::string_view AugmentOpName(AugmentOp op);

// `op` with magnitude m, as torchvision's _apply_op; `warp` gives the
// geometric ops' interpolation and fill. Errors are the kernels'.
Result<Tensor> ApplyAugmentOp(const Tensor& images, AugmentOp op, double magnitude, const WarpOptions& warp);

enum class AugmentPolicy { kRandAugment, kTrivialAugmentWide, kAugMix };

// The ops of the policy's space, in torchvision's order (the order its
// uniform op index picks from). AugMix's holds no Identity; its last four
// (Brightness, Color, Contrast, Sharpness) are its all_ops ones.
std::span<const AugmentOp> AugmentSpace(AugmentPolicy policy);

// Whether the op takes a magnitude, and whether its sign is drawn.
bool HasMagnitude(AugmentOp op);
bool HasSignedMagnitude(AugmentOp op);

// The magnitude of `op` at `bin` (in [0, num_bins), num_bins >= 2) in the
// policy's space for an image of height x width: torchvision's linspace and
// posterize tables, float32 values as torch makes them (AugMix's: 10 bins,
// translations to a third of the side, posterize 4 to 0 bits). 0 for an op
// without one.
double AugmentMagnitude(AugmentPolicy policy, AugmentOp op, int64_t bin, int64_t num_bins, int64_t height,
                        int64_t width);

// AutoAugment's learned policies (Cubuk et al. 2019), as torchvision has
// them: 25 sub-policies of two steps each.
enum class AutoAugmentPolicy { kImageNet, kCifar10, kSvhn };

// "imagenet", "cifar10" or "svhn", as torchvision's AutoAugmentPolicy values.
std::string_view AutoAugmentPolicyName(AutoAugmentPolicy policy);
Result<AutoAugmentPolicy> ParseAutoAugmentPolicy(std::string_view name);

// A step of a sub-policy: `op` applied with `probability`, at magnitude bin
// `bin` of 10 of RandAugment's space (AutoAugment's, with 10 bins), or -1
// for an op without a magnitude.
struct AugmentStep {
  AugmentOp op;
  double probability;
  int bin;
};
using SubPolicy = std::array<AugmentStep, 2>;

// The policy's sub-policies, in torchvision's order.
std::span<const SubPolicy> AutoAugmentSubPolicies(AutoAugmentPolicy policy);

}  // namespace sluice

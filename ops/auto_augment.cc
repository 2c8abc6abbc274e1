#include "sluice/ops/auto_augment.h"

#include <array>
#include <cmath>

#include "sluice/ops/blend_image.h"
#include "sluice/ops/solarize.h"
#include "sluice/ops/tone_curve.h"

namespace sluice {

namespace {

// torch.linspace(start, end, steps)[index] in float32: the first half counted
// from the start, the second back from the end, each a fused multiply-add
// as torch's vectorised kernel computes most of them.
double Linspace(double start, double end, int64_t index, int64_t steps) {
  const auto first = static_cast<float>(start), last = static_cast<float>(end);
  if (steps == 1) return first;
  const float step = (last - first) / static_cast<float>(steps - 1);
  if (index < steps / 2) return std::fmaf(step, static_cast<float>(index), first);
  return std::fmaf(-step, static_cast<float>(steps - index - 1), last);
}

// most - (arange(num_bins) / ((num_bins - 1) / levels)).round() at index.
double PosterizeBits(int64_t most, int64_t levels, int64_t index, int64_t num_bins) {
  const auto divisor = static_cast<float>(static_cast<double>(num_bins - 1) / static_cast<double>(levels));
  return static_cast<double>(most) - std::nearbyint(static_cast<float>(index) / divisor);
}

// Python's math.degrees.
double Degrees(double radians) { return radians * (180.0 / M_PI); }

constexpr std::array kSpace = {AugmentOp::kIdentity,     AugmentOp::kShearX,     AugmentOp::kShearY,
                               AugmentOp::kTranslateX,   AugmentOp::kTranslateY, AugmentOp::kRotate,
                               AugmentOp::kBrightness,   AugmentOp::kColor,      AugmentOp::kContrast,
                               AugmentOp::kSharpness,    AugmentOp::kPosterize,  AugmentOp::kSolarize,
                               AugmentOp::kAutoContrast, AugmentOp::kEqualize};

// AugMix._augmentation_space, all_ops last.
constexpr std::array kAugMixSpace = {AugmentOp::kShearX,     AugmentOp::kShearY,       AugmentOp::kTranslateX,
                                     AugmentOp::kTranslateY, AugmentOp::kRotate,       AugmentOp::kPosterize,
                                     AugmentOp::kSolarize,   AugmentOp::kAutoContrast, AugmentOp::kEqualize,
                                     AugmentOp::kBrightness, AugmentOp::kColor,        AugmentOp::kContrast,
                                     AugmentOp::kSharpness};

// torchvision's AutoAugment._get_policies.
constexpr SubPolicy kImageNetPolicy[] = {
    {{{AugmentOp::kPosterize, 0.4, 8}, {AugmentOp::kRotate, 0.6, 9}}},
    {{{AugmentOp::kSolarize, 0.6, 5}, {AugmentOp::kAutoContrast, 0.6, -1}}},
    {{{AugmentOp::kEqualize, 0.8, -1}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kPosterize, 0.6, 7}, {AugmentOp::kPosterize, 0.6, 6}}},
    {{{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kSolarize, 0.2, 4}}},
    {{{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kRotate, 0.8, 8}}},
    {{{AugmentOp::kSolarize, 0.6, 3}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kPosterize, 0.8, 5}, {AugmentOp::kEqualize, 1.0, -1}}},
    {{{AugmentOp::kRotate, 0.2, 3}, {AugmentOp::kSolarize, 0.6, 8}}},
    {{{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kPosterize, 0.4, 6}}},
    {{{AugmentOp::kRotate, 0.8, 8}, {AugmentOp::kColor, 0.4, 0}}},
    {{{AugmentOp::kRotate, 0.4, 9}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kEqualize, 0.0, -1}, {AugmentOp::kEqualize, 0.8, -1}}},
    {{{AugmentOp::kInvert, 0.6, -1}, {AugmentOp::kEqualize, 1.0, -1}}},
    {{{AugmentOp::kColor, 0.6, 4}, {AugmentOp::kContrast, 1.0, 8}}},
    {{{AugmentOp::kRotate, 0.8, 8}, {AugmentOp::kColor, 1.0, 2}}},
    {{{AugmentOp::kColor, 0.8, 8}, {AugmentOp::kSolarize, 0.8, 7}}},
    {{{AugmentOp::kSharpness, 0.4, 7}, {AugmentOp::kInvert, 0.6, -1}}},
    {{{AugmentOp::kShearX, 0.6, 5}, {AugmentOp::kEqualize, 1.0, -1}}},
    {{{AugmentOp::kColor, 0.4, 0}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kEqualize, 0.4, -1}, {AugmentOp::kSolarize, 0.2, 4}}},
    {{{AugmentOp::kSolarize, 0.6, 5}, {AugmentOp::kAutoContrast, 0.6, -1}}},
    {{{AugmentOp::kInvert, 0.6, -1}, {AugmentOp::kEqualize, 1.0, -1}}},
    {{{AugmentOp::kColor, 0.6, 4}, {AugmentOp::kContrast, 1.0, 8}}},
    {{{AugmentOp::kEqualize, 0.8, -1}, {AugmentOp::kEqualize, 0.6, -1}}},
};
constexpr SubPolicy kCifar10Policy[] = {
    {{{AugmentOp::kInvert, 0.1, -1}, {AugmentOp::kContrast, 0.2, 6}}},
    {{{AugmentOp::kRotate, 0.7, 2}, {AugmentOp::kTranslateX, 0.3, 9}}},
    {{{AugmentOp::kSharpness, 0.8, 1}, {AugmentOp::kSharpness, 0.9, 3}}},
    {{{AugmentOp::kShearY, 0.5, 8}, {AugmentOp::kTranslateY, 0.7, 9}}},
    {{{AugmentOp::kAutoContrast, 0.5, -1}, {AugmentOp::kEqualize, 0.9, -1}}},
    {{{AugmentOp::kShearY, 0.2, 7}, {AugmentOp::kPosterize, 0.3, 7}}},
    {{{AugmentOp::kColor, 0.4, 3}, {AugmentOp::kBrightness, 0.6, 7}}},
    {{{AugmentOp::kSharpness, 0.3, 9}, {AugmentOp::kBrightness, 0.7, 9}}},
    {{{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kEqualize, 0.5, -1}}},
    {{{AugmentOp::kContrast, 0.6, 7}, {AugmentOp::kSharpness, 0.6, 5}}},
    {{{AugmentOp::kColor, 0.7, 7}, {AugmentOp::kTranslateX, 0.5, 8}}},
    {{{AugmentOp::kEqualize, 0.3, -1}, {AugmentOp::kAutoContrast, 0.4, -1}}},
    {{{AugmentOp::kTranslateY, 0.4, 3}, {AugmentOp::kSharpness, 0.2, 6}}},
    {{{AugmentOp::kBrightness, 0.9, 6}, {AugmentOp::kColor, 0.2, 8}}},
    {{{AugmentOp::kSolarize, 0.5, 2}, {AugmentOp::kInvert, 0.0, -1}}},
    {{{AugmentOp::kEqualize, 0.2, -1}, {AugmentOp::kAutoContrast, 0.6, -1}}},
    {{{AugmentOp::kEqualize, 0.2, -1}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kColor, 0.9, 9}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kAutoContrast, 0.8, -1}, {AugmentOp::kSolarize, 0.2, 8}}},
    {{{AugmentOp::kBrightness, 0.1, 3}, {AugmentOp::kColor, 0.7, 0}}},
    {{{AugmentOp::kSolarize, 0.4, 5}, {AugmentOp::kAutoContrast, 0.9, -1}}},
    {{{AugmentOp::kTranslateY, 0.9, 9}, {AugmentOp::kTranslateY, 0.7, 9}}},
    {{{AugmentOp::kAutoContrast, 0.9, -1}, {AugmentOp::kSolarize, 0.8, 3}}},
    {{{AugmentOp::kEqualize, 0.8, -1}, {AugmentOp::kInvert, 0.1, -1}}},
    {{{AugmentOp::kTranslateY, 0.7, 9}, {AugmentOp::kAutoContrast, 0.9, -1}}},
};
constexpr SubPolicy kSvhnPolicy[] = {
    {{{AugmentOp::kShearX, 0.9, 4}, {AugmentOp::kInvert, 0.2, -1}}},
    {{{AugmentOp::kShearY, 0.9, 8}, {AugmentOp::kInvert, 0.7, -1}}},
    {{{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kSolarize, 0.6, 6}}},
    {{{AugmentOp::kInvert, 0.9, -1}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kRotate, 0.9, 3}}},
    {{{AugmentOp::kShearX, 0.9, 4}, {AugmentOp::kAutoContrast, 0.8, -1}}},
    {{{AugmentOp::kShearY, 0.9, 8}, {AugmentOp::kInvert, 0.4, -1}}},
    {{{AugmentOp::kShearY, 0.9, 5}, {AugmentOp::kSolarize, 0.2, 6}}},
    {{{AugmentOp::kInvert, 0.9, -1}, {AugmentOp::kAutoContrast, 0.8, -1}}},
    {{{AugmentOp::kEqualize, 0.6, -1}, {AugmentOp::kRotate, 0.9, 3}}},
    {{{AugmentOp::kShearX, 0.9, 4}, {AugmentOp::kSolarize, 0.3, 3}}},
    {{{AugmentOp::kShearY, 0.8, 8}, {AugmentOp::kInvert, 0.7, -1}}},
    {{{AugmentOp::kEqualize, 0.9, -1}, {AugmentOp::kTranslateY, 0.6, 6}}},
    {{{AugmentOp::kInvert, 0.9, -1}, {AugmentOp::kEqualize, 0.6, -1}}},
    {{{AugmentOp::kContrast, 0.3, 3}, {AugmentOp::kRotate, 0.8, 4}}},
    {{{AugmentOp::kInvert, 0.8, -1}, {AugmentOp::kTranslateY, 0.0, 2}}},
    {{{AugmentOp::kShearY, 0.7, 6}, {AugmentOp::kSolarize, 0.4, 8}}},
    {{{AugmentOp::kInvert, 0.6, -1}, {AugmentOp::kRotate, 0.8, 4}}},
    {{{AugmentOp::kShearY, 0.3, 7}, {AugmentOp::kTranslateX, 0.9, 3}}},
    {{{AugmentOp::kShearX, 0.1, 6}, {AugmentOp::kInvert, 0.6, -1}}},
    {{{AugmentOp::kSolarize, 0.7, 2}, {AugmentOp::kTranslateY, 0.6, 7}}},
    {{{AugmentOp::kShearY, 0.8, 4}, {AugmentOp::kInvert, 0.8, -1}}},
    {{{AugmentOp::kShearX, 0.7, 9}, {AugmentOp::kTranslateY, 0.8, 3}}},
    {{{AugmentOp::kShearY, 0.8, 5}, {AugmentOp::kAutoContrast, 0.7, -1}}},
    {{{AugmentOp::kShearX, 0.7, 2}, {AugmentOp::kInvert, 0.1, -1}}},
};

}  // namespace

std::string_view AugmentOpName(AugmentOp op) {
  switch (op) {
    case AugmentOp::kIdentity: return "Identity";
    case AugmentOp::kShearX: return "ShearX";
    case AugmentOp::kShearY: return "ShearY";
    case AugmentOp::kTranslateX: return "TranslateX";
    case AugmentOp::kTranslateY: return "TranslateY";
    case AugmentOp::kRotate: return "Rotate";
    case AugmentOp::kBrightness: return "Brightness";
    case AugmentOp::kColor: return "Color";
    case AugmentOp::kContrast: return "Contrast";
    case AugmentOp::kSharpness: return "Sharpness";
    case AugmentOp::kPosterize: return "Posterize";
    case AugmentOp::kSolarize: return "Solarize";
    case AugmentOp::kAutoContrast: return "AutoContrast";
    case AugmentOp::kEqualize: return "Equalize";
    case AugmentOp::kInvert: return "Invert";
  }
  return "?";
}

Result<Tensor> ApplyAugmentOp(const Tensor& images, AugmentOp op, double magnitude, const WarpOptions& warp) {
  if (images.dtype() != DType::kUInt8) {
    return InvalidArgumentError(AugmentOpName(op), ": expected a uint8 image, got ", images.dtype(), images.shape());
  }
  switch (op) {
    case AugmentOp::kIdentity: return images;
    case AugmentOp::kShearX:
      return AffineImage(images, {.shear_x = Degrees(std::atan(magnitude)), .center = std::array{0.0, 0.0}}, warp);
    case AugmentOp::kShearY:
      return AffineImage(images, {.shear_y = Degrees(std::atan(magnitude)), .center = std::array{0.0, 0.0}}, warp);
    case AugmentOp::kTranslateX: return AffineImage(images, {.translate_x = std::trunc(magnitude)}, warp);
    case AugmentOp::kTranslateY: return AffineImage(images, {.translate_y = std::trunc(magnitude)}, warp);
    // rotate's angle is counter-clockwise, affine's clockwise.
    case AugmentOp::kRotate: return AffineImage(images, {.angle = -magnitude}, warp);
    case AugmentOp::kBrightness: return BlendImage(images, BlendTarget::kBrightness, 1.0 + magnitude);
    case AugmentOp::kColor: return BlendImage(images, BlendTarget::kSaturation, 1.0 + magnitude);
    case AugmentOp::kContrast: return BlendImage(images, BlendTarget::kContrast, 1.0 + magnitude);
    case AugmentOp::kSharpness: return BlendImage(images, BlendTarget::kSharpness, 1.0 + magnitude);
    case AugmentOp::kPosterize: return Posterize(images, static_cast<int>(magnitude));
    case AugmentOp::kSolarize: return Solarize(images, magnitude, 255);
    case AugmentOp::kAutoContrast: return Autocontrast(images);
    case AugmentOp::kEqualize: return Equalize(images);
    case AugmentOp::kInvert: return Solarize(images, 0, 255);
  }
  return InternalError("ApplyAugmentOp: unknown op");
}

std::span<const AugmentOp> AugmentSpace(AugmentPolicy policy) {
  // RandAugment's and TrivialAugmentWide's spaces hold the same ops; their
  // magnitudes differ.
  if (policy == AugmentPolicy::kAugMix) return kAugMixSpace;
  return kSpace;
}

bool HasMagnitude(AugmentOp op) {
  return op != AugmentOp::kIdentity && op != AugmentOp::kAutoContrast && op != AugmentOp::kEqualize &&
         op != AugmentOp::kInvert;
}

bool HasSignedMagnitude(AugmentOp op) {
  return HasMagnitude(op) && op != AugmentOp::kPosterize && op != AugmentOp::kSolarize;
}

double AugmentMagnitude(AugmentPolicy policy, AugmentOp op, int64_t bin, int64_t num_bins, int64_t height,
                        int64_t width) {
  const bool wide = policy == AugmentPolicy::kTrivialAugmentWide, augmix = policy == AugmentPolicy::kAugMix;
  // The largest shift along a side of `size` pixels.
  const auto translation = [&](int64_t size) {
    if (augmix) return static_cast<double>(size) / 3.0;
    return wide ? 32.0 : 150.0 / 331.0 * static_cast<double>(size);
  };
  switch (op) {
    case AugmentOp::kShearX:
    case AugmentOp::kShearY: return Linspace(0.0, wide ? 0.99 : 0.3, bin, num_bins);
    case AugmentOp::kTranslateX: return Linspace(0.0, translation(width), bin, num_bins);
    case AugmentOp::kTranslateY: return Linspace(0.0, translation(height), bin, num_bins);
    case AugmentOp::kRotate: return Linspace(0.0, wide ? 135.0 : 30.0, bin, num_bins);
    case AugmentOp::kBrightness:
    case AugmentOp::kColor:
    case AugmentOp::kContrast:
    case AugmentOp::kSharpness: return Linspace(0.0, wide ? 0.99 : 0.9, bin, num_bins);
    case AugmentOp::kPosterize: return PosterizeBits(augmix ? 4 : 8, wide ? 6 : 4, bin, num_bins);
    case AugmentOp::kSolarize: return Linspace(255.0, 0.0, bin, num_bins);
    default: return 0;
  }
}

std::string_view AutoAugmentPolicyName(AutoAugmentPolicy policy) {
  switch (policy) {
    case AutoAugmentPolicy::kImageNet: return "imagenet";
    case AutoAugmentPolicy::kCifar10: return "cifar10";
    case AutoAugmentPolicy::kSvhn: return "svhn";
  }
  return "?";
}

Result<AutoAugmentPolicy> ParseAutoAugmentPolicy(std::string_view name) {
  for (const AutoAugmentPolicy policy :
       {AutoAugmentPolicy::kImageNet, AutoAugmentPolicy::kCifar10, AutoAugmentPolicy::kSvhn}) {
    if (name == AutoAugmentPolicyName(policy)) return policy;
  }
  return InvalidArgumentError("policy must be \"imagenet\", \"cifar10\" or \"svhn\", got \"", name, "\"");
}

std::span<const SubPolicy> AutoAugmentSubPolicies(AutoAugmentPolicy policy) {
  switch (policy) {
    case AutoAugmentPolicy::kImageNet: return kImageNetPolicy;
    case AutoAugmentPolicy::kCifar10: return kCifar10Policy;
    case AutoAugmentPolicy::kSvhn: return kSvhnPolicy;
  }
  return {};
}

}  // namespace sluice

#include "sluice/dataset/auto_augment_functions.h"

#include <algorithm>
#include <cmath>

#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/auto_augment.h"
#include "sluice/ops/counter_rng.h"
#include "sluice/ops/image_size.h"

namespace sluice {
namespace {

constexpr int64_t kMaxOps = 64;
constexpr int64_t kMaxBins = 1024;

Status CheckBinsAndFill(std::string_view fn, int64_t num_bins, const std::vector<float>& fill) {
  if (num_bins < 2 || num_bins > kMaxBins) {
    return InvalidArgumentError(fn, ": num_magnitude_bins must be in [2, ", kMaxBins, "], got ", num_bins);
  }
  if (fill.size() != 0 && fill.size() != 1 && fill.size() != 3) {
    return InvalidArgumentError(fn, ": fill takes one value or three, got ", fill.size());
  }
  for (const float v : fill) {
    if (!(v >= 0 && v <= 255)) return InvalidArgumentError(fn, ": fill must be in [0, 255], got ", v);
  }
  return OkStatus();
}

std::string WarpSuffix(const WarpOptions& warp) {
  std::string fill;
  for (const float v : warp.fill) fill += StrCat(fill.empty() ? "" : ", ", v);
  return StrCat(", ", WarpInterpolationName(warp.interpolation),
                warp.fill.empty() ? "" : StrCat(", fill=[", fill, "]"));
}

// The image checks every element passes, drawn op or not.
Status CheckImage(const Tensor& image) {
  if (image.dtype() != DType::kUInt8) {
    return InvalidArgumentError("expected a uint8 image, got ", image.dtype(), image.shape());
  }
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(image));
  if (dims.channels != 1 && dims.channels != 3) {
    return InvalidArgumentError("expected 1 or 3 channels, got ", image.shape());
  }
  return OkStatus();
}

// Applies `op` at magnitude bin `bin` of the policy's space; uniform number
// `sign_draw` decides the sign of a signed op.
Result<Tensor> ApplyDrawn(const Tensor& image, AugmentPolicy policy, AugmentOp op, int64_t bin, int64_t num_bins,
                          double sign_draw, const WarpOptions& warp) {
  const int64_t h = image.rank() - 3;
  double magnitude = AugmentMagnitude(policy, op, bin, num_bins, image.dim(h), image.dim(h + 1));
  if (HasSignedMagnitude(op) && sign_draw < 0.5) magnitude = -magnitude;
  Result<Tensor> out = ApplyAugmentOp(image, op, magnitude, warp);
  if (!out.ok()) return out.status().WithContext(StrCat(AugmentOpName(op), " ", magnitude));
  return out;
}

void WriteWarp(const WarpOptions& warp, std::string* interpolation, google::protobuf::RepeatedField<float>* fill) {
  *interpolation = std::string(WarpInterpolationName(warp.interpolation));
  for (const float v : warp.fill) fill->Add(v);
}

Result<WarpOptions> WarpFromSpec(std::string_view fn, const std::string& interpolation,
                                 const google::protobuf::RepeatedField<float>& fill) {
  WarpOptions warp{.fill = std::vector<float>(fill.begin(), fill.end())};
  if (!interpolation.empty()) {
    Result<WarpInterpolation> parsed = ParseWarpInterpolation(interpolation);
    if (!parsed.ok()) return parsed.status().WithContext(fn);
    warp.interpolation = *parsed;
  }
  return warp;
}

}  // namespace

Result<ElementFunctionPtr> MakeAutoAugmentFunction(std::string component, AutoAugmentOptions options) {
  constexpr std::string_view kFn = "auto_augment";
  SLUICE_RETURN_IF_ERROR(CheckBinsAndFill(kFn, 10, options.fill));
  const WarpOptions warp{.interpolation = options.interpolation, .fill = options.fill};
  std::string name = StrCat(kFn, "(", ComponentPrefix(component), "policy=", AutoAugmentPolicyName(options.policy),
                            WarpSuffix(warp), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8ColorImageSpec,
      [options, warp](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(CheckImage(image));
        const std::span<const SubPolicy> policies = AutoAugmentSubPolicies(options.policy);
        const SubPolicy& steps =
            policies[static_cast<size_t>(UniformIndex(uniform(0), static_cast<int64_t>(policies.size())))];
        Tensor out = image;
        for (int64_t k = 0; k < 2; ++k) {
          const AugmentStep& step = steps[static_cast<size_t>(k)];
          if (!(uniform(1 + k) <= step.probability)) continue;  // torchvision's probs[i] <= p
          SLUICE_ASSIGN_OR_RETURN(out, ApplyDrawn(out, AugmentPolicy::kRandAugment, step.op, std::max(step.bin, 0), 10,
                                                  uniform(3 + k), warp));
        }
        return out;
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::AutoAugment* node = out->mutable_auto_augment();
        node->set_component(component);
        node->set_policy(std::string(AutoAugmentPolicyName(options.policy)));
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node->mutable_interpolation(),
                  node->mutable_fill());
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandAugmentFunction(std::string component, RandAugmentOptions options) {
  constexpr std::string_view kFn = "rand_augment";
  SLUICE_RETURN_IF_ERROR(CheckBinsAndFill(kFn, options.num_magnitude_bins, options.fill));
  if (options.num_ops < 0 || options.num_ops > kMaxOps) {
    return InvalidArgumentError(kFn, ": num_ops must be in [0, ", kMaxOps, "], got ", options.num_ops);
  }
  if (options.magnitude < 0 || options.magnitude >= options.num_magnitude_bins) {
    return InvalidArgumentError(kFn, ": magnitude must be in [0, num_magnitude_bins = ", options.num_magnitude_bins,
                                "), got ", options.magnitude);
  }
  const WarpOptions warp{.interpolation = options.interpolation, .fill = options.fill};
  std::string name =
      StrCat(kFn, "(", ComponentPrefix(component), "num_ops=", options.num_ops, ", magnitude=", options.magnitude, "/",
             options.num_magnitude_bins, WarpSuffix(warp), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8ColorImageSpec,
      [options, warp](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(CheckImage(image));
        const std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kRandAugment);
        Tensor out = image;
        for (int64_t k = 0; k < options.num_ops; ++k) {
          const AugmentOp op =
              space[static_cast<size_t>(UniformIndex(uniform(2 * k), static_cast<int64_t>(space.size())))];
          SLUICE_ASSIGN_OR_RETURN(out, ApplyDrawn(out, AugmentPolicy::kRandAugment, op, options.magnitude,
                                                  options.num_magnitude_bins, uniform(2 * k + 1), warp));
        }
        return out;
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandAugment* node = out->mutable_rand_augment();
        node->set_component(component);
        node->set_num_ops(options.num_ops);
        node->set_magnitude(options.magnitude);
        node->set_num_magnitude_bins(options.num_magnitude_bins);
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node->mutable_interpolation(),
                  node->mutable_fill());
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeTrivialAugmentWideFunction(std::string component, TrivialAugmentWideOptions options) {
  constexpr std::string_view kFn = "trivial_augment_wide";
  SLUICE_RETURN_IF_ERROR(CheckBinsAndFill(kFn, options.num_magnitude_bins, options.fill));
  const WarpOptions warp{.interpolation = options.interpolation, .fill = options.fill};
  std::string name = StrCat(kFn, "(", ComponentPrefix(component), "bins=", options.num_magnitude_bins, WarpSuffix(warp),
                            RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8ColorImageSpec,
      [options, warp](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(CheckImage(image));
        const std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kTrivialAugmentWide);
        const AugmentOp op = space[static_cast<size_t>(UniformIndex(uniform(0), static_cast<int64_t>(space.size())))];
        const int64_t bin = UniformIndex(uniform(1), options.num_magnitude_bins);
        return ApplyDrawn(image, AugmentPolicy::kTrivialAugmentWide, op, bin, options.num_magnitude_bins, uniform(2),
                          warp);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::TrivialAugmentWide* node = out->mutable_trivial_augment_wide();
        node->set_component(component);
        node->set_num_magnitude_bins(options.num_magnitude_bins);
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node->mutable_interpolation(),
                  node->mutable_fill());
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> AutoAugmentFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kAutoAugment: {
      const spec::AutoAugment& node = fn.auto_augment();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpFromSpec("auto_augment", node.interpolation(), node.fill()));
      AutoAugmentOptions options{
          .interpolation = warp.interpolation, .fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (!node.policy().empty()) {
        Result<AutoAugmentPolicy> policy = ParseAutoAugmentPolicy(node.policy());
        if (!policy.ok()) return policy.status().WithContext("auto_augment");
        options.policy = *policy;
      }
      return MakeAutoAugmentFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandAugment: {
      const spec::RandAugment& node = fn.rand_augment();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpFromSpec("rand_augment", node.interpolation(), node.fill()));
      RandAugmentOptions options{
          .interpolation = warp.interpolation, .fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (node.has_num_ops()) options.num_ops = node.num_ops();
      if (node.has_magnitude()) options.magnitude = node.magnitude();
      if (node.has_num_magnitude_bins()) options.num_magnitude_bins = node.num_magnitude_bins();
      return MakeRandAugmentFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kTrivialAugmentWide: {
      const spec::TrivialAugmentWide& node = fn.trivial_augment_wide();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp,
                              WarpFromSpec("trivial_augment_wide", node.interpolation(), node.fill()));
      TrivialAugmentWideOptions options{
          .interpolation = warp.interpolation, .fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (node.has_num_magnitude_bins()) options.num_magnitude_bins = node.num_magnitude_bins();
      return MakeTrivialAugmentWideFunction(node.component(), std::move(options));
    }
    default: break;
  }
  return InternalError("AutoAugmentFunctionFromSpec: not an automatic augmentation policy");
}

}  // namespace sluice

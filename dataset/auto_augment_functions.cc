#include "sluice/dataset/auto_augment_functions.h"

#include <algorithm>
#include <cmath>

#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/auto_augment.h"
#include "sluice/ops/counter_rng.h"
#include "sluice/ops/image_size.h"
#include "sluice/ops/mixup.h"

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
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node);
        WriteRandomSource(options.random, node);
      });
}

namespace {

// AugMix's mix of image j of `image` with its chains: m0 * image +
// sum_i w_i * chain_i in float32 (torch's order), truncated to uint8.
void MixAugMix(const Tensor& image, const std::vector<Tensor>& chains, const AugMixOptions& options,
               const UniformStream& uniform, Tensor* out) {
  const int64_t batch = image.rank() == 4 ? image.dim(0) : 1;
  const int64_t values = image.NumElements() / std::max<int64_t>(batch, 1);
  std::vector<float> mix(static_cast<size_t>(values));
  std::vector<double> gammas(static_cast<size_t>(options.mixture_width));
  for (int64_t j = 0; j < batch; ++j) {
    const int64_t first = 1024 + 8192 * j;
    // (m0, m1) ~ Dirichlet(alpha, alpha), then the chains' weights.
    const double g0 = DrawGamma(options.alpha, uniform, first), g1 = DrawGamma(options.alpha, uniform, first + 256);
    const auto m0 = static_cast<float>(g0 + g1 > 0 ? g0 / (g0 + g1) : 0.5);
    const auto m1 = static_cast<float>(g0 + g1 > 0 ? g1 / (g0 + g1) : 0.5);
    double sum = 0;
    for (int64_t i = 0; i < options.mixture_width; ++i) {
      gammas[static_cast<size_t>(i)] = DrawGamma(options.alpha, uniform, first + 1024 + 256 * i);
      sum += gammas[static_cast<size_t>(i)];
    }
    const uint8_t* in = image.data<uint8_t>() + j * values;
    for (int64_t k = 0; k < values; ++k) mix[static_cast<size_t>(k)] = m0 * static_cast<float>(in[k]);
    for (int64_t i = 0; i < options.mixture_width; ++i) {
      const double share =
          sum > 0 ? gammas[static_cast<size_t>(i)] / sum : 1.0 / static_cast<double>(options.mixture_width);
      const float weight = static_cast<float>(share) * m1;
      const uint8_t* augmented = chains[static_cast<size_t>(i)].data<uint8_t>() + j * values;
      for (int64_t k = 0; k < values; ++k) mix[static_cast<size_t>(k)] += weight * static_cast<float>(augmented[k]);
    }
    uint8_t* dst = out->mutable_data<uint8_t>() + j * values;
    for (int64_t k = 0; k < values; ++k)
      dst[k] = static_cast<uint8_t>(std::clamp(mix[static_cast<size_t>(k)], 0.0f, 255.0f));
  }
}

}  // namespace

Result<ElementFunctionPtr> MakeAugMixFunction(std::string component, AugMixOptions options) {
  constexpr std::string_view kFn = "augmix";
  SLUICE_RETURN_IF_ERROR(CheckBinsAndFill(kFn, 10, options.fill));
  if (options.severity < 1 || options.severity > 10) {
    return InvalidArgumentError(kFn, ": severity must be in [1, 10], got ", options.severity);
  }
  if (options.mixture_width < 1 || options.mixture_width > 16) {
    return InvalidArgumentError(kFn, ": mixture_width must be in [1, 16], got ", options.mixture_width);
  }
  if (options.chain_depth != -1 && (options.chain_depth < 1 || options.chain_depth > 16)) {
    return InvalidArgumentError(kFn, ": chain_depth must be -1 or in [1, 16], got ", options.chain_depth);
  }
  if (!(options.alpha > 0) || !std::isfinite(options.alpha)) {
    return InvalidArgumentError(kFn, ": alpha must be positive and finite, got ", options.alpha);
  }
  const WarpOptions warp{.interpolation = options.interpolation, .fill = options.fill};
  std::string name =
      StrCat(kFn, "(", ComponentPrefix(component), "severity=", options.severity, ", width=", options.mixture_width,
             ", depth=", options.chain_depth, ", alpha=", options.alpha, options.all_ops ? "" : ", all_ops=false",
             WarpSuffix(warp), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8ColorImageSpec,
      [options, warp](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(CheckImage(image));
        std::span<const AugmentOp> space = AugmentSpace(AugmentPolicy::kAugMix);
        if (!options.all_ops) space = space.first(space.size() - 4);
        std::vector<Tensor> chains;
        for (int64_t i = 0; i < options.mixture_width; ++i) {
          const int64_t base = 64 * i;
          const int64_t depth = options.chain_depth > 0 ? options.chain_depth : 1 + UniformIndex(uniform(base), 3);
          Tensor chain = image;
          for (int64_t step = 0; step < depth; ++step) {
            const int64_t k = base + 1 + 3 * step;
            const AugmentOp op =
                space[static_cast<size_t>(UniformIndex(uniform(k), static_cast<int64_t>(space.size())))];
            SLUICE_ASSIGN_OR_RETURN(
                chain, ApplyDrawn(chain, AugmentPolicy::kAugMix, op, UniformIndex(uniform(k + 1), options.severity), 10,
                                  uniform(k + 2), warp));
          }
          chains.push_back(std::move(chain));
        }
        Tensor out = Tensor::AllocateUninitialized(DType::kUInt8, image.shape());
        MixAugMix(image, chains, options, uniform, &out);
        return out;
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::AugMix* node = out->mutable_augmix();
        node->set_component(component);
        node->set_severity(options.severity);
        node->set_mixture_width(options.mixture_width);
        node->set_chain_depth(options.chain_depth);
        node->set_alpha(options.alpha);
        node->set_all_ops(options.all_ops);
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node);
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
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node);
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
        WriteWarp({.interpolation = options.interpolation, .fill = options.fill}, node);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> AutoAugmentFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kAutoAugment: {
      const spec::AutoAugment& node = fn.auto_augment();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpOf("auto_augment", node));
      AutoAugmentOptions options{
          .interpolation = warp.interpolation, .fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (!node.policy().empty()) {
        Result<AutoAugmentPolicy> policy = ParseAutoAugmentPolicy(node.policy());
        if (!policy.ok()) return policy.status().WithContext("auto_augment");
        options.policy = *policy;
      }
      return MakeAutoAugmentFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kAugmix: {
      const spec::AugMix& node = fn.augmix();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpOf("augmix", node));
      AugMixOptions options{.fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (!node.interpolation().empty()) options.interpolation = warp.interpolation;
      if (node.has_severity()) options.severity = node.severity();
      if (node.has_mixture_width()) options.mixture_width = node.mixture_width();
      if (node.has_chain_depth()) options.chain_depth = node.chain_depth();
      if (node.has_alpha()) options.alpha = node.alpha();
      if (node.has_all_ops()) options.all_ops = node.all_ops();
      return MakeAugMixFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandAugment: {
      const spec::RandAugment& node = fn.rand_augment();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpOf("rand_augment", node));
      RandAugmentOptions options{
          .interpolation = warp.interpolation, .fill = std::move(warp.fill), .random = RandomSourceOf(node)};
      if (node.has_num_ops()) options.num_ops = node.num_ops();
      if (node.has_magnitude()) options.magnitude = node.magnitude();
      if (node.has_num_magnitude_bins()) options.num_magnitude_bins = node.num_magnitude_bins();
      return MakeRandAugmentFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kTrivialAugmentWide: {
      const spec::TrivialAugmentWide& node = fn.trivial_augment_wide();
      SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpOf("trivial_augment_wide", node));
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

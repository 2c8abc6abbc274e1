// random_posterize, random_equalize, random_autocontrast,
// random_adjust_sharpness and random_invert (random_adjust_functions.h);
// random_affine and random_rotation are in random_affine_functions.cc.
#include "sluice/dataset/random_adjust_functions.h"

#include <cmath>
#include <functional>
#include <limits>

#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/blend_image.h"
#include "sluice/ops/image_size.h"
#include "sluice/ops/solarize.h"
#include "sluice/ops/tone_curve.h"

namespace sluice {

namespace {

using AdjustFn = std::function<Result<Tensor>(const Tensor&)>;

// A function named fn(component, parameters p=probability, ...) that
// changes an element's image by `adjust` when its draw 0 is below
// `probability`, and else leaves it.
Result<ElementFunctionPtr> MakeRandomApplyFunction(std::string_view fn, std::string component,
                                                   const std::string& parameters, double probability,
                                                   const RandomSource& random, RandomOutputSpecFn output_spec,
                                                   AdjustFn adjust, WriteSpecFn write_spec) {
  SLUICE_RETURN_IF_ERROR(CheckProbability(fn, probability));
  std::string name =
      StrCat(fn, "(", ComponentPrefix(component), parameters, "p=", probability, RandomSuffix(random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), random, std::move(output_spec),
      [probability, adjust = std::move(adjust)](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(ImageDimsOf(image).status());
        if (!(uniform(0) < probability)) return image;
        return adjust(image);
      },
      std::move(write_spec));
}

std::string MaxValueSuffix(float max_value) { return max_value == 255 ? "" : StrCat(", max_value=", max_value); }

// The parameters' text for a function whose only other option is max_value.
std::string MaxValueParameter(float max_value) { return max_value == 255 ? "" : StrCat("max_value=", max_value, ", "); }

}  // namespace

Result<ElementFunctionPtr> MakeRandomPosterizeFunction(std::string component, RandomPosterizeOptions options) {
  constexpr std::string_view kFn = "random_posterize";
  if (options.bits < 0 || options.bits > 8)
    return InvalidArgumentError(kFn, ": bits must be in [0, 8], got ", options.bits);
  return MakeRandomApplyFunction(
      kFn, std::move(component), StrCat("bits=", options.bits, ", "), options.probability, options.random,
      Uint8ColorImageSpec, [bits = options.bits](const Tensor& image) { return Posterize(image, bits); },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomPosterize* node = out->mutable_random_posterize();
        node->set_component(component);
        node->set_bits(options.bits);
        node->set_probability(options.probability);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomEqualizeFunction(std::string component, RandomEqualizeOptions options) {
  return MakeRandomApplyFunction(
      "random_equalize", std::move(component), "", options.probability, options.random, Uint8ColorImageSpec,
      [](const Tensor& image) { return Equalize(image); },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomEqualize* node = out->mutable_random_equalize();
        node->set_component(component);
        node->set_probability(options.probability);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomAutocontrastFunction(std::string component, RandomAutocontrastOptions options) {
  constexpr std::string_view kFn = "random_autocontrast";
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  return MakeRandomApplyFunction(
      kFn, std::move(component), MaxValueParameter(options.max_value), options.probability, options.random,
      ColorImageSpec, [max_value = options.max_value](const Tensor& image) { return Autocontrast(image, max_value); },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomAutocontrast* node = out->mutable_random_autocontrast();
        node->set_component(component);
        node->set_probability(options.probability);
        node->set_max_value(options.max_value);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomAdjustSharpnessFunction(std::string component,
                                                             RandomAdjustSharpnessOptions options) {
  constexpr std::string_view kFn = "random_adjust_sharpness";
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  if (!(options.sharpness_factor >= 0) || !std::isfinite(options.sharpness_factor)) {
    return InvalidArgumentError(kFn, ": sharpness_factor must be non-negative and finite, got ",
                                options.sharpness_factor);
  }
  return MakeRandomApplyFunction(
      kFn, std::move(component),
      StrCat("sharpness_factor=", options.sharpness_factor, MaxValueSuffix(options.max_value), ", "),
      options.probability, options.random, ColorImageSpec,
      [options](const Tensor& image) {
        return BlendImage(image, BlendTarget::kSharpness, options.sharpness_factor, options.max_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomAdjustSharpness* node = out->mutable_random_adjust_sharpness();
        node->set_component(component);
        node->set_sharpness_factor(options.sharpness_factor);
        node->set_probability(options.probability);
        node->set_max_value(options.max_value);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomInvertFunction(std::string component, RandomInvertOptions options) {
  constexpr std::string_view kFn = "random_invert";
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  return MakeRandomApplyFunction(
      kFn, std::move(component), MaxValueParameter(options.max_value), options.probability, options.random,
      Uint8OrFloatImageSpec,
      [max_value = options.max_value](const Tensor& image) {
        // Solarizing at -infinity inverts every value.
        return Solarize(image, -std::numeric_limits<double>::infinity(), max_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomInvert* node = out->mutable_random_invert();
        node->set_component(component);
        node->set_probability(options.probability);
        node->set_max_value(options.max_value);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> RandomAdjustFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kRandomPosterize: {
      const spec::RandomPosterize& node = fn.random_posterize();
      RandomPosterizeOptions options{.bits = node.bits(), .random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      return MakeRandomPosterizeFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomEqualize: {
      const spec::RandomEqualize& node = fn.random_equalize();
      RandomEqualizeOptions options{.random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      return MakeRandomEqualizeFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomAutocontrast: {
      const spec::RandomAutocontrast& node = fn.random_autocontrast();
      RandomAutocontrastOptions options{.random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      if (node.has_max_value()) options.max_value = node.max_value();
      return MakeRandomAutocontrastFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomAdjustSharpness: {
      const spec::RandomAdjustSharpness& node = fn.random_adjust_sharpness();
      RandomAdjustSharpnessOptions options{.sharpness_factor = node.sharpness_factor(), .random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      if (node.has_max_value()) options.max_value = node.max_value();
      return MakeRandomAdjustSharpnessFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomInvert: {
      const spec::RandomInvert& node = fn.random_invert();
      RandomInvertOptions options{.random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      if (node.has_max_value()) options.max_value = node.max_value();
      return MakeRandomInvertFunction(node.component(), std::move(options));
    }
    default: break;
  }
  return InternalError("RandomAdjustFunctionFromSpec: not a random adjustment");
}

}  // namespace sluice

// random_flip, decode_jpeg_random_crop, color_jitter and random_grayscale
// (image_functions.h).
#include <algorithm>
#include <array>
#include <cmath>

#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/counter_rng.h"

namespace sluice {
namespace {

std::string_view FlipDirectionName(FlipDirection direction) {
  return direction == FlipDirection::kUpDown ? "up_down" : "left_right";
}

// [min, max] from a spec's repeated field, or `fallback` when it is empty.
Result<std::pair<double, double>> RangeField(std::string_view field,
                                             const google::protobuf::RepeatedField<double>& values,
                                             std::pair<double, double> fallback) {
  if (values.empty()) return fallback;
  if (values.size() != 2) {
    return InvalidArgumentError("decode_jpeg_random_crop: ", field, " must be [min, max], got ",
                                values.size(), " values");
  }
  return std::pair<double, double>{values[0], values[1]};
}

}  // namespace

UniformStream SeededStream(uint64_t element_seed) {
  return [state = Mix64(element_seed)](int64_t k) { return UniformAt(state, k); };
}

UniformStream ElementStream(uint64_t seed, int64_t index) {
  constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
  const uint64_t state = Mix64(Mix64(seed) ^ Mix64(static_cast<uint64_t>(index) + kGolden));
  return [state](int64_t k) { return UniformAt(state, k); };
}

Result<ElementFunctionPtr> MakeRandomFlipFunction(std::string component, RandomFlipOptions options) {
  if (!(options.probability >= 0 && options.probability <= 1)) {
    return InvalidArgumentError("random_flip: probability must be in [0, 1], got ", options.probability);
  }
  std::string name = StrCat("random_flip(", ComponentPrefix(component), FlipDirectionName(options.direction),
                            ", p=", options.probability, RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random,
      [](const ElementSpec& input, size_t i) -> Result<ComponentSpec> {
        SLUICE_RETURN_IF_ERROR(ImageSpecOf(input[i]).status());
        return input[i];
      },
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        if (uniform(0) >= options.probability) {
          SLUICE_RETURN_IF_ERROR(ImageDimsOf(image).status());
          return image;
        }
        return FlipImage(image, options.direction);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomFlip* node = out->mutable_random_flip();
        node->set_component(component);
        node->set_direction(std::string(FlipDirectionName(options.direction)));
        node->set_probability(options.probability);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeDecodeJpegRandomCropFunction(std::string component,
                                                            DecodeJpegRandomCropOptions options) {
  constexpr std::string_view kFn = "decode_jpeg_random_crop";
  if (options.height <= 0 || options.width <= 0) {
    return InvalidArgumentError(kFn, ": size must be positive, got [", options.height, ", ", options.width, "]");
  }
  if (options.decode.ratio != 1) {
    return InvalidArgumentError(kFn, ": the decode ratio must be 1, got ", options.decode.ratio);
  }
  for (Status status : {CheckDecodeJpegOptions(options.decode), CheckRandomResizedCropOptions(options.crop)}) {
    if (!status.ok()) return status.WithContext(kFn);
  }
  const RandomResizedCropOptions& crop = options.crop;
  std::string name = StrCat(kFn, "(", ComponentPrefix(component), options.height, "x", options.width,
                            ", channels=", options.decode.channels, ", scale=[", crop.scale_min, ", ",
                            crop.scale_max, "], ratio=[", crop.ratio_min, ", ", crop.ratio_max,
                            "], attempts=", crop.attempts, ", dct=", JpegDctMethodName(options.decode.dct_method),
                            options.method == ResizeMethod::kBilinear
                                ? ""
                                : StrCat(", method=", ResizeMethodName(options.method)),
                            options.scaled_idct ? "" : ", scaled_idct=false", RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random,
      [options](const ElementSpec& input, size_t i) -> Result<ComponentSpec> {
        const ComponentSpec& in = input[i];
        if (in.dtype != DType::kString || (in.shape.known_rank() && in.shape.rank() != 0)) {
          return InvalidArgumentError("is ", in.dtype, in.shape, "; a decoder needs a scalar string of encoded bytes");
        }
        const int64_t channels = options.decode.channels == 0 ? -1 : options.decode.channels;
        return ComponentSpec{input[i].name, ResizeOutputDType(DType::kUInt8, options.method),
                             PartialShape{options.height, options.width, channels}};
      },
      [options](const Tensor& t, const UniformStream& uniform) -> Result<Tensor> {
        if (t.dtype() != DType::kString || t.rank() != 0) {
          return InvalidArgumentError("expected a scalar string of JPEG bytes, got ", t.dtype(), t.shape());
        }
        const TString& bytes = t.scalar<TString>();
        const CropResizeTarget target =
            options.scaled_idct ? CropResizeTarget{.height = options.height, .width = options.width}
                                : CropResizeTarget{};
        SLUICE_ASSIGN_OR_RETURN(
            DecodedJpegWindow decoded,
            DecodeJpegCropRows(std::string_view(bytes.data(), bytes.size()),
                               [&](int64_t height, int64_t width) -> Result<CropWindow> {
                                 return RandomResizedCropWindow(height, width, options.crop, uniform);
                               },
                               options.decode, target));
        return ResizeImageWindow(
            decoded.rows, decoded.window,
            {.height = options.height, .width = options.width, .method = options.method, .antialias = true});
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::DecodeJpegRandomCrop* node = out->mutable_decode_jpeg_random_crop();
        node->set_component(component);
        node->add_size(options.height);
        node->add_size(options.width);
        node->set_channels(options.decode.channels);
        node->set_dct_method(std::string(JpegDctMethodName(options.decode.dct_method)));
        node->add_scale(options.crop.scale_min);
        node->add_scale(options.crop.scale_max);
        node->add_ratio(options.crop.ratio_min);
        node->add_ratio(options.crop.ratio_max);
        node->set_attempts(options.crop.attempts);
        node->set_max_pixels(options.decode.max_pixels);
        if (!options.scaled_idct) node->set_scaled_idct(false);
        if (options.method != ResizeMethod::kBilinear) node->set_method(std::string(ResizeMethodName(options.method)));
        WriteRandomSource(options.random, node);
      });
}

std::vector<ColorAdjustment> DrawColorJitter(const ColorJitterOptions& options, const UniformStream& uniform) {
  if (options.probability < 1 && uniform(8) >= options.probability) return {};
  std::array<ColorProperty, 4> order = {ColorProperty::kBrightness, ColorProperty::kContrast,
                                        ColorProperty::kSaturation, ColorProperty::kHue};
  for (int i = 3; i > 0; --i) {
    const int j = std::min(i, static_cast<int>(uniform(3 - i) * (i + 1)));
    std::swap(order[i], order[j]);
  }
  // torchvision's ranges: [max(0, 1 - x), 1 + x] for a factor, [-x, x] for the hue.
  const std::array<double, 4> amounts = {options.brightness, options.contrast, options.saturation, options.hue};
  std::vector<ColorAdjustment> steps;
  for (const ColorProperty property : order) {
    const double x = amounts[static_cast<size_t>(property)];
    if (x == 0) continue;
    const double u = uniform(4 + static_cast<int64_t>(property));
    const bool hue = property == ColorProperty::kHue;
    const double low = hue ? -x : std::max(0.0, 1 - x), high = hue ? x : 1 + x;
    steps.push_back({property, low + u * (high - low)});
  }
  return steps;
}

Result<ElementFunctionPtr> MakeColorJitterFunction(std::string component, ColorJitterOptions options) {
  constexpr std::string_view kFn = "color_jitter";
  for (const auto& [field, value] : {std::pair<std::string_view, double>{"brightness", options.brightness},
                                     {"contrast", options.contrast},
                                     {"saturation", options.saturation}}) {
    if (!(value >= 0) || !std::isfinite(value)) {
      return InvalidArgumentError(kFn, ": ", field, " must be finite and >= 0, got ", value);
    }
  }
  if (!(options.hue >= 0 && options.hue <= 0.5)) {
    return InvalidArgumentError(kFn, ": hue must be in [0, 0.5], got ", options.hue);
  }
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  std::string name = StrCat(kFn, "(", ComponentPrefix(component), "brightness=", options.brightness,
                            ", contrast=", options.contrast, ", saturation=", options.saturation, ", hue=", options.hue,
                            options.max_value == 255 ? "" : StrCat(", max_value=", options.max_value),
                            options.probability == 1 ? "" : StrCat(", p=", options.probability),
                            RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random,
      ColorImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        const std::vector<ColorAdjustment> steps = DrawColorJitter(options, uniform);
        return AdjustColor(image, steps, options.max_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::ColorJitter* node = out->mutable_color_jitter();
        node->set_component(component);
        node->set_brightness(options.brightness);
        node->set_contrast(options.contrast);
        node->set_saturation(options.saturation);
        node->set_hue(options.hue);
        node->set_max_value(options.max_value);
        if (options.probability != 1) node->set_probability(options.probability);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomGrayscaleFunction(std::string component, RandomGrayscaleOptions options) {
  constexpr std::string_view kFn = "random_grayscale";
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  std::string name = StrCat(kFn, "(", ComponentPrefix(component), "p=", options.probability,
                            options.max_value == 255 ? "" : StrCat(", max_value=", options.max_value),
                            RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, ColorImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        const ColorAdjustment gray{ColorProperty::kSaturation, 0};
        const size_t steps = uniform(0) < options.probability ? 1 : 0;
        return AdjustColor(image, {&gray, steps}, options.max_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomGrayscale* node = out->mutable_random_grayscale();
        node->set_component(component);
        node->set_probability(options.probability);
        node->set_max_value(options.max_value);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> ImageRandomFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kRandomFlip: {
      const spec::RandomFlip& node = fn.random_flip();
      RandomFlipOptions options{.random = RandomSourceOf(node)};
      if (node.direction() == "up_down") {
        options.direction = FlipDirection::kUpDown;
      } else if (!node.direction().empty() && node.direction() != "left_right") {
        return InvalidArgumentError("random_flip: unknown direction '", node.direction(),
                                    "' (expected left_right or up_down)");
      }
      if (node.has_probability()) options.probability = node.probability();
      return MakeRandomFlipFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kDecodeJpegRandomCrop: {
      const spec::DecodeJpegRandomCrop& node = fn.decode_jpeg_random_crop();
      DecodeJpegRandomCropOptions options{.random = RandomSourceOf(node)};
      if (!node.size().empty()) {
        if (node.size().size() != 2) {
          return InvalidArgumentError("decode_jpeg_random_crop: size must be [height, width], got ",
                                      node.size().size(), " values");
        }
        options.height = node.size(0);
        options.width = node.size(1);
      }
      if (node.has_channels()) options.decode.channels = node.channels();
      if (!node.dct_method().empty()) {
        Result<JpegDctMethod> method = ParseJpegDctMethod(node.dct_method());
        if (!method.ok()) return method.status().WithContext("decode_jpeg_random_crop: dct_method");
        options.decode.dct_method = *method;
      }
      if (node.has_max_pixels()) options.decode.max_pixels = node.max_pixels();
      SLUICE_ASSIGN_OR_RETURN(const auto scale, RangeField("scale", node.scale(), {0.08, 1.0}));
      SLUICE_ASSIGN_OR_RETURN(const auto ratio, RangeField("ratio", node.ratio(), {3.0 / 4, 4.0 / 3}));
      options.crop = {.scale_min = scale.first, .scale_max = scale.second, .ratio_min = ratio.first,
                      .ratio_max = ratio.second};
      if (node.has_attempts()) options.crop.attempts = node.attempts();
      if (node.has_scaled_idct()) options.scaled_idct = node.scaled_idct();
      if (!node.method().empty()) {
        Result<ResizeMethod> method = ParseResizeMethod(node.method());
        if (!method.ok()) return method.status().WithContext("decode_jpeg_random_crop: method");
        options.method = *method;
      }
      return MakeDecodeJpegRandomCropFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kColorJitter: {
      const spec::ColorJitter& node = fn.color_jitter();
      ColorJitterOptions options{.brightness = node.brightness(), .contrast = node.contrast(),
                                 .saturation = node.saturation(), .hue = node.hue(),
                                 .random = RandomSourceOf(node)};
      if (node.has_max_value()) options.max_value = node.max_value();
      if (node.has_probability()) options.probability = node.probability();
      return MakeColorJitterFunction(node.component(), options);
    }
    case spec::ElementFunction::kRandomGrayscale: {
      const spec::RandomGrayscale& node = fn.random_grayscale();
      RandomGrayscaleOptions options{.random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      if (node.has_max_value()) options.max_value = node.max_value();
      return MakeRandomGrayscaleFunction(node.component(), options);
    }
    default: break;
  }
  return InternalError("ImageRandomFunctionFromSpec: not a random image function");
}

}  // namespace sluice

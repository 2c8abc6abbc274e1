// random_crop, gaussian_blur, random_solarize and random_erasing
// (image_functions.h): the augmentations of CIFAR-style, contrastive
// (SimCLR, BYOL) and vision transformer (DeiT) training.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/counter_rng.h"
#include "sluice/ops/erase_image.h"
#include "sluice/ops/image_size.h"
#include "sluice/ops/solarize.h"

namespace sluice {
namespace {

// Padding from a spec or options is untrusted: at most this much on a side,
// so that padded sizes never overflow.
constexpr int64_t kMaxPadding = kDefaultMaxImagePixels;
// The longest crop side (JPEG's largest): a crop's source indices take 8
// bytes a row and a column, so a 2^27 x 1 crop would make a 1 GiB index.
constexpr int64_t kMaxCropSide = 65535;

// The source index of each of `count` padded positions from `first`, along
// a dimension of `size` padded by `before` (then by `extra` on both sides,
// when pad_if_needed adds it), or -1 for a fill.
std::vector<int64_t> CropSources(int64_t first, int64_t count, int64_t size, int64_t before, int64_t extra,
                                 PaddingMode mode, int64_t padded_size) {
  std::vector<int64_t> sources(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const int64_t padded = PaddedSourceIndex(first + i, padded_size, extra, mode);
    sources[i] = padded < 0 ? -1 : PaddedSourceIndex(padded, size, before, mode);
  }
  return sources;
}

// [a, b] from a spec's repeated field of one or two values (one: [a, a]), or
// `fallback` when it is empty.
template <typename T>
Result<std::pair<T, T>> PairField(std::string_view fn, std::string_view field,
                                  const google::protobuf::RepeatedField<T>& values, std::pair<T, T> fallback) {
  if (values.empty()) return fallback;
  if (values.size() > 2) {
    return InvalidArgumentError(fn, ": ", field, " takes one or two values, got ", values.size());
  }
  return std::pair<T, T>{values[0], values[values.size() - 1]};
}

// torchvision's RandomErasing.get_params: the box of one of 10 attempts, or
// none.
std::optional<CropWindow> DrawErasingWindow(int64_t height, int64_t width, const RandomErasingOptions& options,
                                            const UniformStream& uniform) {
  const double area = static_cast<double>(height) * static_cast<double>(width);
  const double log_min = std::log(options.ratio_min), log_max = std::log(options.ratio_max);
  for (int64_t a = 0; a < 10; ++a) {
    const double erase = area * (options.scale_min + uniform(1 + 4 * a) * (options.scale_max - options.scale_min));
    const double aspect = std::exp(log_min + uniform(2 + 4 * a) * (log_max - log_min));
    const auto h = static_cast<int64_t>(std::nearbyint(std::sqrt(erase * aspect)));
    const auto w = static_cast<int64_t>(std::nearbyint(std::sqrt(erase / aspect)));
    if (!(h < height && w < width)) continue;
    return CropWindow{.top = UniformIndex(uniform(3 + 4 * a), height - h + 1),
                      .left = UniformIndex(uniform(4 + 4 * a), width - w + 1),
                      .height = h,
                      .width = w};
  }
  return std::nullopt;
}

// The fill of an erased box: `value` per channel, or standard normal values
// (Box-Muller, draws 64 on) in the layout's order.
Tensor ErasingFill(const RandomErasingOptions& options, int64_t channels, const CropWindow& window,
                   const UniformStream& uniform) {
  if (!options.random_value) {
    std::vector<float> values(static_cast<size_t>(channels), options.value[0]);
    if (options.value.size() > 1) values = options.value;
    return Tensor::FromVector<float>(values);
  }
  const Shape shape = options.layout == ImageLayout::kCHW ? Shape{channels, window.height, window.width}
                                                          : Shape{window.height, window.width, channels};
  Tensor fill = Tensor::AllocateUninitialized(DType::kFloat32, shape);  // within the image's size
  float* values = fill.mutable_data<float>();
  for (int64_t i = 0; i < fill.NumElements(); ++i) {
    values[i] = static_cast<float>(StandardNormal(uniform(64 + 2 * i), uniform(65 + 2 * i)));
  }
  return fill;
}

}  // namespace

Result<ElementFunctionPtr> MakeRandomCropFunction(std::string component, RandomCropOptions options) {
  constexpr std::string_view kFn = "random_crop";
  if (options.height <= 0 || options.width <= 0) {
    return InvalidArgumentError(kFn, ": size must be positive, got [", options.height, ", ", options.width, "]");
  }
  SLUICE_RETURN_IF_ERROR(
      ImageShape(StrCat(kFn, ": the crop"), options.height, options.width, 1, kDefaultMaxImagePixels).status());
  if (options.height > kMaxCropSide || options.width > kMaxCropSide) {
    return InvalidArgumentError(kFn, ": crop sides must be at most ", kMaxCropSide, ", got [", options.height, ", ",
                                options.width, "]");
  }
  const ImagePadding& pad = options.padding;
  for (const int64_t side : {pad.top, pad.bottom, pad.left, pad.right}) {
    if (side < 0 || side > kMaxPadding) {
      return InvalidArgumentError(kFn, ": padding must be in [0, ", kMaxPadding, "], got [", pad.top, ", ", pad.bottom,
                                  ", ", pad.left, ", ", pad.right, "]");
    }
  }
  if (!std::isfinite(options.fill)) return InvalidArgumentError(kFn, ": fill must be finite, got ", options.fill);
  const bool padded = pad != ImagePadding{} || options.pad_if_needed;
  std::string name = StrCat(
      kFn, "(", ComponentPrefix(component), options.height, "x", options.width,
      pad == ImagePadding{} ? ""
                            : StrCat(", padding=[", pad.top, ", ", pad.bottom, ", ", pad.left, ", ", pad.right, "]"),
      options.pad_if_needed ? ", pad_if_needed" : "", padded ? StrCat(", ", PaddingModeName(options.padding_mode)) : "",
      padded && options.padding_mode == PaddingMode::kConstant && options.fill != 0 ? StrCat(", fill=", options.fill)
                                                                                    : "",
      RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random,
      [options](const ElementSpec& input, size_t i) -> Result<ComponentSpec> {
        SLUICE_ASSIGN_OR_RETURN(const ImageSpec image, ImageSpecOf(input[i]));
        std::vector<int64_t> dims = image.dims;
        dims[image.h] = options.height;
        dims[image.h + 1] = options.width;
        return ComponentSpec{input[i].name, input[i].dtype, PartialShape(dims)};
      },
      [options, padded](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(image));
        const ImagePadding& pad = options.padding;
        const PaddingMode mode = options.padding_mode;
        SLUICE_RETURN_IF_ERROR(CheckPadding("height", dims.height, pad.top, pad.bottom, mode));
        SLUICE_RETURN_IF_ERROR(CheckPadding("width", dims.width, pad.left, pad.right, mode));
        const int64_t height = dims.height + pad.top + pad.bottom, width = dims.width + pad.left + pad.right;
        const int64_t extra_y = options.pad_if_needed ? std::max<int64_t>(0, options.height - height) : 0;
        const int64_t extra_x = options.pad_if_needed ? std::max<int64_t>(0, options.width - width) : 0;
        SLUICE_RETURN_IF_ERROR(CheckPadding("padded height", height, extra_y, extra_y, mode));
        SLUICE_RETURN_IF_ERROR(CheckPadding("padded width", width, extra_x, extra_x, mode));
        const int64_t full_height = height + 2 * extra_y, full_width = width + 2 * extra_x;
        if (full_height < options.height || full_width < options.width) {
          return InvalidArgumentError("crop [", options.height, ", ", options.width, "] is larger than the ",
                                      padded ? "padded " : "", "image [", full_height, ", ", full_width, "]");
        }
        const int64_t top = UniformIndex(uniform(0), full_height - options.height + 1);
        const int64_t left = UniformIndex(uniform(1), full_width - options.width + 1);
        const std::vector<int64_t> rows = CropSources(top, options.height, dims.height, pad.top, extra_y, mode, height);
        const std::vector<int64_t> columns =
            CropSources(left, options.width, dims.width, pad.left, extra_x, mode, width);
        return GatherImagePixels(image, rows, columns, options.fill);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomCrop* node = out->mutable_random_crop();
        node->set_component(component);
        node->add_size(options.height);
        node->add_size(options.width);
        const ImagePadding& pad = options.padding;
        if (pad != ImagePadding{}) {
          for (const int64_t side : {pad.left, pad.top, pad.right, pad.bottom}) node->add_padding(side);
        }
        node->set_pad_if_needed(options.pad_if_needed);
        node->set_padding_mode(std::string(PaddingModeName(options.padding_mode)));
        node->set_fill(options.fill);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeGaussianBlurFunction(std::string component, RandomGaussianBlurOptions options) {
  constexpr std::string_view kFn = "gaussian_blur";
  Status kernel = CheckGaussianKernelSize(options.kernel_height, options.kernel_width);
  if (!kernel.ok()) return kernel.WithContext(kFn);
  if (!(options.sigma_min > 0) || !(options.sigma_max >= options.sigma_min) || !std::isfinite(options.sigma_max)) {
    return InvalidArgumentError(kFn, ": sigma must be [min, max] with 0 < min <= max, finite, got [", options.sigma_min,
                                ", ", options.sigma_max, "]");
  }
  SLUICE_RETURN_IF_ERROR(CheckProbability(kFn, options.probability));
  std::string name =
      StrCat(kFn, "(", ComponentPrefix(component), "kernel=", options.kernel_height, "x", options.kernel_width,
             ", sigma=[", options.sigma_min, ", ", options.sigma_max, "]",
             options.probability == 1 ? "" : StrCat(", p=", options.probability), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8OrFloatImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        if (options.probability < 1 && uniform(1) >= options.probability) {
          SLUICE_RETURN_IF_ERROR(ImageDimsOf(image).status());
          return image;
        }
        const double sigma = options.sigma_min + uniform(0) * (options.sigma_max - options.sigma_min);
        return GaussianBlur(image, {.kernel_height = options.kernel_height,
                                    .kernel_width = options.kernel_width,
                                    .sigma_y = sigma,
                                    .sigma_x = sigma});
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::GaussianBlur* node = out->mutable_gaussian_blur();
        node->set_component(component);
        node->add_kernel_size(options.kernel_height);
        node->add_kernel_size(options.kernel_width);
        node->add_sigma(options.sigma_min);
        node->add_sigma(options.sigma_max);
        if (options.probability != 1) node->set_probability(options.probability);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomSolarizeFunction(std::string component, RandomSolarizeOptions options) {
  constexpr std::string_view kFn = "random_solarize";
  SLUICE_RETURN_IF_ERROR(CheckMaxValueAndProbability(kFn, options.max_value, options.probability));
  if (!(options.threshold >= 0 && options.threshold <= options.max_value)) {
    return InvalidArgumentError(kFn, ": threshold must be in [0, max_value = ", options.max_value, "], got ",
                                options.threshold);
  }
  std::string name = StrCat(
      kFn, "(", ComponentPrefix(component), "threshold=", options.threshold, ", p=", options.probability,
      options.max_value == 255 ? "" : StrCat(", max_value=", options.max_value), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8OrFloatImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_RETURN_IF_ERROR(ImageDimsOf(image).status());
        if (image.dtype() == DType::kUInt8 && options.threshold > 255) {
          return InvalidArgumentError("threshold ", options.threshold, " is above a uint8 image's white, 255");
        }
        if (uniform(0) >= options.probability) return image;
        return Solarize(image, options.threshold, options.max_value);
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomSolarize* node = out->mutable_random_solarize();
        node->set_component(component);
        node->set_threshold(options.threshold);
        node->set_probability(options.probability);
        node->set_max_value(options.max_value);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomErasingFunction(std::string component, RandomErasingOptions options) {
  constexpr std::string_view kFn = "random_erasing";
  SLUICE_RETURN_IF_ERROR(CheckProbability(kFn, options.probability));
  if (!(options.scale_min > 0 && options.scale_min <= options.scale_max && options.scale_max <= 1)) {
    return InvalidArgumentError(kFn, ": scale must be [min, max] with 0 < min <= max <= 1, got [", options.scale_min,
                                ", ", options.scale_max, "]");
  }
  if (!(options.ratio_min > 0 && options.ratio_min <= options.ratio_max && std::isfinite(options.ratio_max))) {
    return InvalidArgumentError(kFn, ": ratio must be [min, max] with 0 < min <= max, finite, got [", options.ratio_min,
                                ", ", options.ratio_max, "]");
  }
  if (!options.random_value && options.value.empty()) return InvalidArgumentError(kFn, ": value is empty");
  for (const float v : options.value) {
    if (!std::isfinite(v)) return InvalidArgumentError(kFn, ": value must be finite, got ", v);
  }
  std::string values;
  for (const float v : options.value) values += StrCat(values.empty() ? "" : ", ", v);
  std::string name =
      StrCat(kFn, "(", ComponentPrefix(component), "p=", options.probability, ", scale=[", options.scale_min, ", ",
             options.scale_max, "], ratio=[", options.ratio_min, ", ", options.ratio_max, "], ",
             options.random_value ? "value=random" : StrCat("value=[", values, "]"), ", ",
             ImageLayoutName(options.layout), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8OrFloatImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        const bool chw = options.layout == ImageLayout::kCHW;
        if (image.rank() != 3 && image.rank() != 4) {
          return InvalidArgumentError("expected an image ", chw ? "[C, H, W]" : "[H, W, C]", " or a batch, got ",
                                      image.shape());
        }
        if (options.random_value && image.dtype() == DType::kUInt8) {
          return InvalidArgumentError("random values need a float32 image, got uint8");
        }
        const int64_t h = image.rank() - 3;
        const int64_t channels = image.dim(chw ? h : h + 2);
        if (!options.random_value && options.value.size() != 1 &&
            static_cast<int64_t>(options.value.size()) != channels) {
          return InvalidArgumentError(options.value.size(), " values for an image of ", channels, " channels");
        }
        if (!(uniform(0) < options.probability)) return image;
        const int64_t height = image.dim(chw ? h + 1 : h), width = image.dim(chw ? h + 2 : h + 1);
        const std::optional<CropWindow> window = DrawErasingWindow(height, width, options, uniform);
        if (!window || window->height == 0 || window->width == 0) return image;
        return EraseImage(image, *window, options.layout, ErasingFill(options, channels, *window, uniform));
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomErasing* node = out->mutable_random_erasing();
        node->set_component(component);
        node->set_probability(options.probability);
        node->add_scale(options.scale_min);
        node->add_scale(options.scale_max);
        node->add_ratio(options.ratio_min);
        node->add_ratio(options.ratio_max);
        for (const float v : options.value) node->add_value(v);
        node->set_random_value(options.random_value);
        node->set_layout(std::string(ImageLayoutName(options.layout)));
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> ImageAugmentFunctionFromSpec(const spec::ElementFunction& fn) {
  switch (fn.fn_case()) {
    case spec::ElementFunction::kRandomCrop: {
      const spec::RandomCrop& node = fn.random_crop();
      RandomCropOptions options{
          .pad_if_needed = node.pad_if_needed(), .fill = node.fill(), .random = RandomSourceOf(node)};
      if (node.size().size() != 2) {
        return InvalidArgumentError("random_crop: size must be [height, width], got ", node.size().size(), " values");
      }
      options.height = node.size(0);
      options.width = node.size(1);
      const auto& p = node.padding();
      switch (p.size()) {
        case 0: break;
        // torchvision's orders: all sides; [left/right, top/bottom]; [left, top, right, bottom].
        case 1: options.padding = {.top = p[0], .bottom = p[0], .left = p[0], .right = p[0]}; break;
        case 2: options.padding = {.top = p[1], .bottom = p[1], .left = p[0], .right = p[0]}; break;
        case 4: options.padding = {.top = p[1], .bottom = p[3], .left = p[0], .right = p[2]}; break;
        default: return InvalidArgumentError("random_crop: padding takes 1, 2 or 4 values, got ", p.size());
      }
      if (!node.padding_mode().empty()) {
        Result<PaddingMode> mode = ParsePaddingMode(node.padding_mode());
        if (!mode.ok()) return mode.status().WithContext("random_crop: padding_mode");
        options.padding_mode = *mode;
      }
      return MakeRandomCropFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kGaussianBlur: {
      constexpr std::string_view kFn = "gaussian_blur";
      const spec::GaussianBlur& node = fn.gaussian_blur();
      if (node.kernel_size().empty()) return InvalidArgumentError(kFn, ": kernel_size is required");
      SLUICE_ASSIGN_OR_RETURN(const auto kernel, PairField<int64_t>(kFn, "kernel_size", node.kernel_size(), {0, 0}));
      SLUICE_ASSIGN_OR_RETURN(const auto sigma, PairField<double>(kFn, "sigma", node.sigma(), {0.1, 2.0}));
      RandomGaussianBlurOptions options{.kernel_height = kernel.first,
                                        .kernel_width = kernel.second,
                                        .sigma_min = sigma.first,
                                        .sigma_max = sigma.second,
                                        .random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      return MakeGaussianBlurFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomSolarize: {
      const spec::RandomSolarize& node = fn.random_solarize();
      RandomSolarizeOptions options{.threshold = node.threshold(), .random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      if (node.has_max_value()) options.max_value = node.max_value();
      return MakeRandomSolarizeFunction(node.component(), std::move(options));
    }
    case spec::ElementFunction::kRandomErasing: {
      constexpr std::string_view kFn = "random_erasing";
      const spec::RandomErasing& node = fn.random_erasing();
      RandomErasingOptions options{.random_value = node.random_value(), .random = RandomSourceOf(node)};
      if (node.has_probability()) options.probability = node.probability();
      SLUICE_ASSIGN_OR_RETURN(const auto scale, PairField<double>(kFn, "scale", node.scale(), {0.02, 0.33}));
      SLUICE_ASSIGN_OR_RETURN(const auto ratio, PairField<double>(kFn, "ratio", node.ratio(), {0.3, 3.3}));
      options.scale_min = scale.first;
      options.scale_max = scale.second;
      options.ratio_min = ratio.first;
      options.ratio_max = ratio.second;
      if (!node.value().empty()) options.value.assign(node.value().begin(), node.value().end());
      if (!node.layout().empty()) {
        Result<ImageLayout> layout = ParseImageLayout(node.layout());
        if (!layout.ok()) return layout.status().WithContext("random_erasing: layout");
        options.layout = *layout;
      }
      return MakeRandomErasingFunction(node.component(), std::move(options));
    }
    default: break;
  }
  return InternalError("ImageAugmentFunctionFromSpec: not an augmentation function");
}

}  // namespace sluice

// mixup (image_functions.h): timm's Mixup and CutMix over a batch.
#include <cmath>
#include <utility>

#include "sluice/dataset/component_target.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/ops/mixup.h"

namespace sluice {
namespace {

// The first of the draws a batch's Beta(alpha, alpha) takes (fewer than 2048).
constexpr int64_t kBetaDraws = 16;

// What a batch's draws make of it: lam and whether CutMix pastes a window.
struct BatchMix {
  double lam = 1;
  bool cutmix = false;
};

// timm's Mixup._params_per_batch, from the batch's stream.
BatchMix DrawBatchMix(const MixupOptions& options, const UniformStream& uniform) {
  if (!(uniform(0) < options.probability)) return {};
  const bool both = options.mixup_alpha > 0 && options.cutmix_alpha > 0;
  const bool cutmix = both ? uniform(1) < options.switch_probability : options.cutmix_alpha > 0;
  const double alpha = cutmix ? options.cutmix_alpha : options.mixup_alpha;
  return {.lam = DrawSymmetricBeta(alpha, uniform, kBetaDraws), .cutmix = cutmix};
}

class MixupFunction final : public ElementFunction {
 public:
  MixupFunction(std::string image_component, MixupOptions options, std::string name)
      : image_component_(std::move(image_component)), options_(std::move(options)), name_(std::move(name)) {}

  std::string name() const override { return name_; }

  Result<BoundElementFunction> Bind(const ElementSpec& input) const override {
    Result<size_t> image = input.IndexOf(image_component_);
    if (!image.ok()) return image.status().WithContext(StrCat(name_, ": the images"));
    Result<size_t> label = input.IndexOf(options_.label_component);
    if (!label.ok()) return label.status().WithContext(StrCat(name_, ": the labels"));
    const ComponentSpec& images = input[*image];
    if (images.dtype != DType::kFloat32 || !images.shape.known_rank() || images.shape.rank() != 4) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(*image), " is ", images.dtype, images.shape,
                                  "; expected a float32 batch of images ",
                                  options_.layout == ImageLayout::kCHW ? "[N, C, H, W]" : "[N, H, W, C]",
                                  " (map it after batch)");
    }
    const ComponentSpec& labels = input[*label];
    int64_t classes = options_.num_classes;
    const bool ids = (labels.dtype == DType::kInt64 || labels.dtype == DType::kInt32) &&
                     labels.shape.IsCompatibleWith(PartialShape{-1});
    const bool rows = labels.dtype == DType::kFloat32 && labels.shape.known_rank() && labels.shape.rank() == 2;
    if (ids && classes <= 0) {
      return InvalidArgumentError(name_, ": the labels ", input.DisplayName(*label),
                                  " are class ids; num_classes must be set");
    }
    if (rows && classes <= 0) classes = labels.shape.dims()[1];
    if (!ids && !rows) {
      return InvalidArgumentError(name_, ": component ", input.DisplayName(*label), " is ", labels.dtype, labels.shape,
                                  "; expected int32 or int64 class ids [N] or float32 rows [N, K]");
    }
    std::vector<ComponentSpec> components = input.components();
    components[*label] = ComponentSpec{labels.name, DType::kFloat32, PartialShape{images.shape.dims()[0], classes}};
    auto apply_seeded = [name = name_, arity = input.size(), image = *image, label = *label, options = options_](
                            Element element, uint64_t element_seed) -> Result<Element> {
      SLUICE_RETURN_IF_ERROR(CheckComponentCount(name, arity, element));
      const Tensor& images = element[image];
      const Tensor& labels = element[label];
      if (images.rank() != 4 || labels.rank() < 1 || labels.dim(0) != images.dim(0)) {
        return InvalidArgumentError(name, ": images ", images.shape(), " and labels ", labels.shape(),
                                    " are not one batch");
      }
      const UniformStream uniform = SeededStream(element_seed);
      BatchMix mix = DrawBatchMix(options, uniform);
      Result<Tensor> mixed = images;
      if (mix.lam < 1 && mix.cutmix) {
        const bool chw = options.layout == ImageLayout::kCHW;
        const int64_t height = images.dim(chw ? 2 : 1), width = images.dim(chw ? 3 : 2);
        const CropWindow window = CutmixWindow(height, width, mix.lam, uniform(2), uniform(3));
        // The share of each image kept, as timm's correct_lam.
        mix.lam = 1 - static_cast<double>(window.height * window.width) / static_cast<double>(height * width);
        mixed = PasteFlippedWindow(images, window, options.layout);
      } else if (mix.lam < 1) {
        mixed = MixBatchImages(images, mix.lam);
      }
      if (!mixed.ok()) return mixed.status().WithContext(name);
      Result<Tensor> mixed_labels = MixBatchLabels(labels, options.num_classes, options.label_smoothing, mix.lam);
      if (!mixed_labels.ok()) return mixed_labels.status().WithContext(name);
      element[image] = *std::move(mixed);
      element[label] = *std::move(mixed_labels);
      return element;
    };
    auto apply = [name = name_](Element) -> Result<Element> {
      return FailedPreconditionError(name, ": draws from the seed map gives each batch; apply it with map");
    };
    return BoundElementFunction{.output_spec = ElementSpec(std::move(components)),
                                .apply = std::move(apply),
                                .row_wise = false,
                                .apply_seeded = std::move(apply_seeded),
                                .seed = options_.seed};
  }

  Status ToSpec(spec::ElementFunction* out) const override {
    spec::Mixup* node = out->mutable_mixup();
    node->set_image_component(image_component_);
    node->set_label_component(options_.label_component);
    node->set_num_classes(options_.num_classes);
    node->set_mixup_alpha(options_.mixup_alpha);
    node->set_cutmix_alpha(options_.cutmix_alpha);
    node->set_switch_probability(options_.switch_probability);
    node->set_probability(options_.probability);
    node->set_label_smoothing(options_.label_smoothing);
    node->set_layout(std::string(ImageLayoutName(options_.layout)));
    if (options_.seed) node->set_seed(*options_.seed);
    return OkStatus();
  }

 private:
  const std::string image_component_;
  const MixupOptions options_;
  const std::string name_;
};

}  // namespace

Result<ElementFunctionPtr> MakeMixupFunction(std::string image_component, MixupOptions options) {
  constexpr std::string_view kFn = "mixup";
  if (image_component.empty() || options.label_component.empty()) {
    return InvalidArgumentError(kFn, ": name the image and the label components");
  }
  for (const auto& [field, alpha] : {std::pair<std::string_view, double>{"mixup_alpha", options.mixup_alpha},
                                     {"cutmix_alpha", options.cutmix_alpha}}) {
    if (!(alpha >= 0) || !std::isfinite(alpha)) {
      return InvalidArgumentError(kFn, ": ", field, " must be finite and >= 0, got ", alpha);
    }
  }
  if (options.mixup_alpha == 0 && options.cutmix_alpha == 0) {
    return InvalidArgumentError(kFn, ": mixup_alpha or cutmix_alpha must be above 0");
  }
  for (const auto& [field, p] : {std::pair<std::string_view, double>{"probability", options.probability},
                                 {"switch_probability", options.switch_probability}}) {
    if (!(p >= 0 && p <= 1)) return InvalidArgumentError(kFn, ": ", field, " must be in [0, 1], got ", p);
  }
  if (!(options.label_smoothing >= 0 && options.label_smoothing < 1)) {
    return InvalidArgumentError(kFn, ": label_smoothing must be in [0, 1), got ", options.label_smoothing);
  }
  if (options.num_classes < 0 || options.num_classes > (int64_t{1} << 24)) {
    return InvalidArgumentError(kFn, ": num_classes must be in [0, 2^24], got ", options.num_classes);
  }
  std::string name = StrCat(
      kFn, "(", image_component, ", ", options.label_component, ", mixup_alpha=", options.mixup_alpha,
      ", cutmix_alpha=", options.cutmix_alpha, ", switch=", options.switch_probability, ", p=", options.probability,
      ", smoothing=", options.label_smoothing, options.num_classes > 0 ? StrCat(", classes=", options.num_classes) : "",
      ", ", ImageLayoutName(options.layout), options.seed ? StrCat(", seed=", *options.seed) : "", ")");
  return ElementFunctionPtr(
      std::make_shared<MixupFunction>(std::move(image_component), std::move(options), std::move(name)));
}

Result<ElementFunctionPtr> MixupFunctionFromSpec(const spec::Mixup& node) {
  MixupOptions options{.label_component = node.label_component(), .num_classes = node.num_classes()};
  if (node.has_mixup_alpha()) options.mixup_alpha = node.mixup_alpha();
  if (node.has_cutmix_alpha()) options.cutmix_alpha = node.cutmix_alpha();
  if (node.has_switch_probability()) options.switch_probability = node.switch_probability();
  if (node.has_probability()) options.probability = node.probability();
  if (node.has_label_smoothing()) options.label_smoothing = node.label_smoothing();
  if (!node.layout().empty()) {
    Result<ImageLayout> layout = ParseImageLayout(node.layout());
    if (!layout.ok()) return layout.status().WithContext("mixup: layout");
    options.layout = *layout;
  }
  if (node.has_seed()) options.seed = node.seed();
  return MakeMixupFunction(node.image_component(), std::move(options));
}

}  // namespace sluice

// random_affine and random_rotation (random_adjust_functions.h).
#include <cmath>

#include "sluice/dataset/image_spec.h"
#include "sluice/dataset/pipeline_spec.pb.h"
#include "sluice/dataset/random_adjust_functions.h"
#include "sluice/dataset/random_image_function.h"
#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// InvalidArgument naming `fn` and `what` unless [min, max] is a finite range.
Status CheckRange(std::string_view fn, std::string_view what, double min, double max) {
  if (!std::isfinite(min) || !std::isfinite(max) || min > max) {
    return InvalidArgumentError(fn, ": ", what, " must be a finite range [min, max], got [", min, ", ", max, "]");
  }
  return OkStatus();
}

Status CheckWarp(std::string_view fn, const std::vector<float>& fill,
                 const std::optional<std::array<double, 2>>& center) {
  for (const float v : fill) {
    if (!std::isfinite(v)) return InvalidArgumentError(fn, ": fill must be finite, got ", v);
  }
  if (center && (!std::isfinite((*center)[0]) || !std::isfinite((*center)[1]))) {
    return InvalidArgumentError(fn, ": center must be finite, got [", (*center)[0], ", ", (*center)[1], "]");
  }
  return OkStatus();
}

// The warp's part of a function's name: "nearest, fill=[1], center=[2, 3]".
std::string WarpText(WarpInterpolation interpolation, const std::vector<float>& fill,
                     const std::optional<std::array<double, 2>>& center) {
  return StrCat(WarpSuffix({.interpolation = interpolation, .fill = fill}).substr(2),
                center ? StrCat(", center=[", (*center)[0], ", ", (*center)[1], "]") : std::string());
}

// torch's uniform_(min, max) from a uniform number u in [0, 1).
double Uniform(double u, double min, double max) { return min + u * (max - min); }

template <typename Node>
void WriteWarpAndCenter(WarpInterpolation interpolation, const std::vector<float>& fill,
                        const std::optional<std::array<double, 2>>& center, Node* node) {
  WriteWarp({.interpolation = interpolation, .fill = fill}, node);
  if (center) {
    node->add_center((*center)[0]);
    node->add_center((*center)[1]);
  }
}

// The warp fields of a spec node: interpolation, fill and center.
template <typename Node, typename Options>
Status ReadWarp(std::string_view fn, const Node& node, Options* options) {
  SLUICE_ASSIGN_OR_RETURN(WarpOptions warp, WarpOf(fn, node));
  options->interpolation = warp.interpolation;
  options->fill = std::move(warp.fill);
  if (node.center().size() == 2) {
    options->center = std::array{node.center(0), node.center(1)};
  } else if (!node.center().empty()) {
    return InvalidArgumentError(fn, ": center takes [x, y], got ", node.center().size(), " values");
  }
  return OkStatus();
}

// torchvision's degrees: one value d for [-d, d] (d >= 0), or [min, max].
Result<std::pair<double, double>> DegreesField(std::string_view fn,
                                               const google::protobuf::RepeatedField<double>& degrees) {
  if (degrees.size() == 1) {
    if (!(degrees[0] >= 0)) return InvalidArgumentError(fn, ": one degrees value must be >= 0, got ", degrees[0]);
    return std::pair{-degrees[0], degrees[0]};
  }
  if (degrees.size() == 2) return std::pair{degrees[0], degrees[1]};
  return InvalidArgumentError(fn, ": degrees takes one value or [min, max], got ", degrees.size(), " values");
}

}  // namespace

Result<ElementFunctionPtr> MakeRandomAffineFunction(std::string component, RandomAffineOptions options) {
  constexpr std::string_view kFn = "random_affine";
  SLUICE_RETURN_IF_ERROR(CheckRange(kFn, "degrees", options.degrees_min, options.degrees_max));
  if (!(options.translate_x >= 0 && options.translate_x <= 1 && options.translate_y >= 0 && options.translate_y <= 1)) {
    return InvalidArgumentError(kFn, ": translate must be in [0, 1], got [", options.translate_x, ", ",
                                options.translate_y, "]");
  }
  SLUICE_RETURN_IF_ERROR(CheckRange(kFn, "scale", options.scale_min, options.scale_max));
  if (!(options.scale_min > 0)) return InvalidArgumentError(kFn, ": scale must be positive, got ", options.scale_min);
  for (const auto& [min, max] :
       {std::pair{options.shear_x_min, options.shear_x_max}, std::pair{options.shear_y_min, options.shear_y_max}}) {
    SLUICE_RETURN_IF_ERROR(CheckRange(kFn, "shear", min, max));
    if (!(min > -90 && max < 90)) {
      return InvalidArgumentError(kFn, ": shear must be in (-90, 90) degrees, got [", min, ", ", max, "]");
    }
  }
  SLUICE_RETURN_IF_ERROR(CheckWarp(kFn, options.fill, options.center));
  std::string name = StrCat(
      kFn, "(", ComponentPrefix(component), "degrees=[", options.degrees_min, ", ", options.degrees_max, "]",
      options.translate_x != 0 || options.translate_y != 0
          ? StrCat(", translate=[", options.translate_x, ", ", options.translate_y, "]")
          : std::string(),
      options.scale_min != 1 || options.scale_max != 1
          ? StrCat(", scale=[", options.scale_min, ", ", options.scale_max, "]")
          : std::string(),
      options.shear_x_min != 0 || options.shear_x_max != 0 || options.shear_y_min != 0 || options.shear_y_max != 0
          ? StrCat(", shear=[", options.shear_x_min, ", ", options.shear_x_max, ", ", options.shear_y_min, ", ",
                   options.shear_y_max, "]")
          : std::string(),
      ", ", WarpText(options.interpolation, options.fill, options.center), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8OrFloatImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(image));
        // torchvision's RandomAffine.get_params, in its order.
        const double max_dx = options.translate_x * static_cast<double>(dims.width);
        const double max_dy = options.translate_y * static_cast<double>(dims.height);
        const AffineParameters parameters{.angle = Uniform(uniform(0), options.degrees_min, options.degrees_max),
                                          .translate_x = std::nearbyint(Uniform(uniform(1), -max_dx, max_dx)),
                                          .translate_y = std::nearbyint(Uniform(uniform(2), -max_dy, max_dy)),
                                          .scale = Uniform(uniform(3), options.scale_min, options.scale_max),
                                          .shear_x = Uniform(uniform(4), options.shear_x_min, options.shear_x_max),
                                          .shear_y = Uniform(uniform(5), options.shear_y_min, options.shear_y_max),
                                          .center = options.center};
        return AffineImage(image, parameters, {.interpolation = options.interpolation, .fill = options.fill});
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomAffine* node = out->mutable_random_affine();
        node->set_component(component);
        node->add_degrees(options.degrees_min);
        node->add_degrees(options.degrees_max);
        if (options.translate_x != 0 || options.translate_y != 0) {
          node->add_translate(options.translate_x);
          node->add_translate(options.translate_y);
        }
        node->add_scale(options.scale_min);
        node->add_scale(options.scale_max);
        for (const double v : {options.shear_x_min, options.shear_x_max, options.shear_y_min, options.shear_y_max}) {
          node->add_shear(v);
        }
        WriteWarpAndCenter(options.interpolation, options.fill, options.center, node);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> MakeRandomRotationFunction(std::string component, RandomRotationOptions options) {
  constexpr std::string_view kFn = "random_rotation";
  SLUICE_RETURN_IF_ERROR(CheckRange(kFn, "degrees", options.degrees_min, options.degrees_max));
  SLUICE_RETURN_IF_ERROR(CheckWarp(kFn, options.fill, options.center));
  std::string name =
      StrCat(kFn, "(", ComponentPrefix(component), "degrees=[", options.degrees_min, ", ", options.degrees_max, "], ",
             WarpText(options.interpolation, options.fill, options.center), RandomSuffix(options.random), ")");
  return MakeRandomImageFunction(
      std::move(component), std::move(name), options.random, Uint8OrFloatImageSpec,
      [options](const Tensor& image, const UniformStream& uniform) -> Result<Tensor> {
        // rotate's angle is counter-clockwise, affine's clockwise.
        const AffineParameters parameters{.angle = -Uniform(uniform(0), options.degrees_min, options.degrees_max),
                                          .center = options.center};
        return AffineImage(image, parameters, {.interpolation = options.interpolation, .fill = options.fill});
      },
      [options](const std::string& component, spec::ElementFunction* out) {
        spec::RandomRotation* node = out->mutable_random_rotation();
        node->set_component(component);
        node->add_degrees(options.degrees_min);
        node->add_degrees(options.degrees_max);
        WriteWarpAndCenter(options.interpolation, options.fill, options.center, node);
        WriteRandomSource(options.random, node);
      });
}

Result<ElementFunctionPtr> RandomAffineFunctionFromSpec(const spec::ElementFunction& fn) {
  if (fn.has_random_rotation()) {
    constexpr std::string_view kFn = "random_rotation";
    const spec::RandomRotation& node = fn.random_rotation();
    SLUICE_ASSIGN_OR_RETURN(const auto degrees, DegreesField(kFn, node.degrees()));
    RandomRotationOptions options{
        .degrees_min = degrees.first, .degrees_max = degrees.second, .random = RandomSourceOf(node)};
    SLUICE_RETURN_IF_ERROR(ReadWarp(kFn, node, &options));
    return MakeRandomRotationFunction(node.component(), std::move(options));
  }
  constexpr std::string_view kFn = "random_affine";
  const spec::RandomAffine& node = fn.random_affine();
  SLUICE_ASSIGN_OR_RETURN(const auto degrees, DegreesField(kFn, node.degrees()));
  RandomAffineOptions options{
      .degrees_min = degrees.first, .degrees_max = degrees.second, .random = RandomSourceOf(node)};
  if (node.translate().size() == 2) {
    options.translate_x = node.translate(0);
    options.translate_y = node.translate(1);
  } else if (!node.translate().empty()) {
    return InvalidArgumentError(kFn, ": translate takes [x, y], got ", node.translate().size(), " values");
  }
  if (node.scale().size() == 2) {
    options.scale_min = node.scale(0);
    options.scale_max = node.scale(1);
  } else if (!node.scale().empty()) {
    return InvalidArgumentError(kFn, ": scale takes [min, max], got ", node.scale().size(), " values");
  }
  // torchvision's shear: s for x in [-s, s]; [min, max] for x; four values for x and y.
  const auto& shear = node.shear();
  switch (shear.size()) {
    case 0: break;
    case 1:
      if (!(shear[0] >= 0)) return InvalidArgumentError(kFn, ": one shear value must be >= 0, got ", shear[0]);
      options.shear_x_min = -shear[0];
      options.shear_x_max = shear[0];
      break;
    case 2:
      options.shear_x_min = shear[0];
      options.shear_x_max = shear[1];
      break;
    case 4:
      options.shear_x_min = shear[0];
      options.shear_x_max = shear[1];
      options.shear_y_min = shear[2];
      options.shear_y_max = shear[3];
      break;
    default: return InvalidArgumentError(kFn, ": shear takes 1, 2 or 4 values, got ", shear.size());
  }
  SLUICE_RETURN_IF_ERROR(ReadWarp(kFn, node, &options));
  return MakeRandomAffineFunction(node.component(), std::move(options));
}

}  // namespace sluice

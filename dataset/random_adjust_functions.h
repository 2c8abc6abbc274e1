// torchvision's single random transforms on the ops of its AutoAugment
// family, as random image functions (for map): RandomPosterize,
// RandomEqualize, RandomAutocontrast, RandomAdjustSharpness, RandomInvert
// (with `probability`, draw 0, the element's image is changed; else it
// stays), RandomAffine and RandomRotation (parameters drawn per element).
// They draw as the other random functions do (dataset/image_functions.h's
// RandomSource: the same at any parallelism and after a restore). Images
// are HWC, [H, W, C] or a batch [N, H, W, C] changed alike; same dtype and
// shape out. White is 255 for uint8 and max_value for float32 (1 for images
// in [0, 1], torchvision's float bound).
// Thread safety: the functions made are immutable.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/dataset/image_functions.h"
#include "sluice/ops/affine_image.h"

namespace sluice {

namespace spec {
class ElementFunction;
}  // namespace spec

// torchvision's RandomPosterize: the top `bits` (0 to 8) bits of each value
// kept (ops/tone_curve.h). uint8 images.
struct RandomPosterizeOptions {
  int bits = 4;
  double probability = 0.5;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomPosterizeFunction(std::string component, RandomPosterizeOptions options);

// torchvision's RandomEqualize: each channel's histogram equalized
// (ops/tone_curve.h). uint8 images of 1 or 3 channels.
struct RandomEqualizeOptions {
  double probability = 0.5;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomEqualizeFunction(std::string component, RandomEqualizeOptions options);

// torchvision's RandomAutocontrast: each channel stretched to [0, white]
// (ops/tone_curve.h). uint8 or float32 images.
struct RandomAutocontrastOptions {
  double probability = 0.5;
  float max_value = 255;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomAutocontrastFunction(std::string component, RandomAutocontrastOptions options);

// torchvision's RandomAdjustSharpness: the image blended with its 3x3
// smoothing by sharpness_factor (ops/blend_image.h: 0 smooth, 1 the image,
// 2 twice as sharp). uint8 or float32 images of 1 or 3 channels.
struct RandomAdjustSharpnessOptions {
  double sharpness_factor = 2;  // >= 0
  double probability = 0.5;
  float max_value = 255;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomAdjustSharpnessFunction(std::string component,
                                                             RandomAdjustSharpnessOptions options);

// torchvision's RandomInvert: every value becomes white minus it. uint8 or
// float32 images.
struct RandomInvertOptions {
  double probability = 0.5;
  float max_value = 255;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomInvertFunction(std::string component, RandomInvertOptions options);

// torchvision's RandomAffine: per element, as its get_params draws them, an
// angle uniform in [degrees_min, degrees_max] (draw 0, clockwise), a
// translation round(uniform(-t, t)) pixels with t = translate_x * width
// (draw 1) and translate_y * height (draw 2), a scale uniform in
// [scale_min, scale_max] (draw 3) and shears uniform in the shear ranges
// (draws 4 and 5, degrees), applied about `center` (unset: the image's
// centre) by AffineImage (ops/affine_image.h) with `interpolation` and
// `fill`. uint8 or float32 images.
struct RandomAffineOptions {
  double degrees_min = 0;
  double degrees_max = 0;
  double translate_x = 0;  // in [0, 1]: the largest shift as a share of the width
  double translate_y = 0;
  double scale_min = 1;  // 0 < scale_min <= scale_max
  double scale_max = 1;
  double shear_x_min = 0;  // in (-90, 90)
  double shear_x_max = 0;
  double shear_y_min = 0;
  double shear_y_max = 0;
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  std::vector<float> fill;                      // empty: 0; else one value, or one per channel
  std::optional<std::array<double, 2>> center;  // (x, y) pixels from the top-left corner
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomAffineFunction(std::string component, RandomAffineOptions options);

// torchvision's RandomRotation (without expand): an angle uniform in
// [degrees_min, degrees_max] (draw 0), counter-clockwise, about `center`.
struct RandomRotationOptions {
  double degrees_min = 0;
  double degrees_max = 0;
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  std::vector<float> fill;
  std::optional<std::array<double, 2>> center;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomRotationFunction(std::string component, RandomRotationOptions options);

// The function a spec message describes (builtin_functions.cc dispatches
// here): random_posterize, random_equalize, random_autocontrast,
// random_adjust_sharpness and random_invert in RandomAdjustFunctionFromSpec;
// random_affine and random_rotation in RandomAffineFunctionFromSpec.
Result<ElementFunctionPtr> RandomAdjustFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> RandomAffineFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice

// AffineImage: torchvision's affine (and rotate) of HWC images, as its
// tensor path computes them: each output pixel's centre is mapped back by
// the inverse of the affine map about a centre (InverseAffineMatrix, its
// _get_inverse_affine_matrix) and sampled with grid_sample's rules
// (align_corners false): kNearest takes the nearest pixel (ties to even),
// kBilinear weighs the four around it. A pixel mapped outside the image is
// 0, or `fill` where one is given: kNearest puts the fill value there,
// kBilinear mixes it by the share of the weights that fell outside, as
// torchvision does. uint8 results are rounded to nearest (ties to even).
// The output has the input's size; a batch [N, H, W, C] is warped alike.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

enum class WarpInterpolation { kNearest, kBilinear };

std::string_view WarpInterpolationName(WarpInterpolation interpolation);
// "nearest" or "bilinear"; else InvalidArgument.
Result<WarpInterpolation> ParseWarpInterpolation(std::string_view name);

// torchvision's affine parameters (F.affine's): the image is rotated by
// `angle` degrees clockwise, scaled, sheared by shear_x and shear_y degrees
// and translated, about `center`.
struct AffineParameters {
  double angle = 0;
  double translate_x = 0;  // pixels, right
  double translate_y = 0;  // pixels, down
  double scale = 1;        // > 0
  double shear_x = 0;      // degrees, in (-90, 90)
  double shear_y = 0;
  // (x, y) in pixels from the top-left corner; unset: the image's centre.
  std::optional<std::array<double, 2>> center;
};

// The 2x3 matrix mapping an output point to its source point, both
// relative to the image's centre (torchvision's inverse matrix for the
// tensor path), or InvalidArgument for a scale that is not positive, a
// shear of 90 degrees or more, or values that are not finite.
Result<std::array<double, 6>> InverseAffineMatrix(const AffineParameters& parameters, int64_t height, int64_t width);

struct WarpOptions {
  WarpInterpolation interpolation = WarpInterpolation::kNearest;
  // Empty: 0 outside the image (torchvision's fill None); else one value,
  // or one per channel, within [0, 255] for a uint8 image.
  std::vector<float> fill;
};

// uint8 or float32 images [H, W, C] or [N, H, W, C]; same dtype and shape.
// InvalidArgument for another dtype or rank, a bad matrix (above), or a
// fill of the wrong length or range.
Result<Tensor> AffineImage(const Tensor& images, const AffineParameters& parameters, const WarpOptions& options);

}  // namespace sluice

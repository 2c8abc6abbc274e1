// ResizeImage: resizes images to [height, width] with tf.image.resize's
// (TensorFlow 2) semantics, so a model trained on TensorFlow-resized inputs
// sees the same values:
//   kBilinear  half-pixel centres: output pixel x samples the input at
//              (x + 0.5) * in / out - 0.5, linearly between its two
//              neighbours, edges clamped (ResizeBilinear, half_pixel_centers).
//              With antialias, when shrinking, the triangle kernel is widened
//              by in / out so every input pixel contributes (TensorFlow's
//              ScaleAndTranslate with the "triangle" kernel); when enlarging
//              antialias changes nothing.
//   kNearest   the input pixel min(floor((x + 0.5) * in / out), in - 1);
//              antialias is ignored.
//   kArea      each output pixel is the mean of the input area it covers,
//              partly covered pixels weighted by their overlap (ResizeArea;
//              always antialiased).
//   kBicubic   Keys' cubic convolution (a = -0.5) at half-pixel centres over
//              the four inputs around the sample, inputs past the edges left
//              out and the others' weights normalised; the kernel's values
//              at the sample's fraction rounded to 1/1024, as TensorFlow's
//              ResizeBicubic tabulates them. With antialias, the exact kernel
//              over a radius of 2, widened by in / out when shrinking
//              (ScaleAndTranslate's "keyscubic", PIL's and torch's
//              antialiased bicubic). Values may overshoot the input's range,
//              as a cubic's do; they are not clamped.
// Input: [H, W, C] or a batch [N, H, W, C] of any numeric dtype. Output:
// float32 (kNearest: the input's dtype, values copied), [height, width, C]
// or [N, height, width, C]. Coordinates and weights are computed in float,
// as TensorFlow does, so values agree with it to float rounding.
// Errors: InvalidArgument for a wrong rank or dtype, a non-positive size or
// an empty input; an output too large for memory is ResourceExhausted.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/crop_image.h"

namespace sluice {

enum class ResizeMethod { kBilinear, kNearest, kArea, kBicubic };

struct ResizeOptions {
  int64_t height = 0;
  int64_t width = 0;
  ResizeMethod method = ResizeMethod::kBilinear;
  bool antialias = false;
};

// InvalidArgument unless height and width are positive.
Status CheckResizeOptions(const ResizeOptions& options);

Result<Tensor> ResizeImage(const Tensor& images, const ResizeOptions& options);

// ResizeImage(CropImage(images, window), options), reading the window in
// place instead of copying it out first. A window outside the images is
// InvalidArgument.
Result<Tensor> ResizeImageWindow(const Tensor& images, const CropWindow& window, const ResizeOptions& options);

// The dtype ResizeImage gives for inputs of `dtype`.
DType ResizeOutputDType(DType dtype, ResizeMethod method);

// "bilinear", "nearest", "area", "bicubic", and back (InvalidArgument naming
// the accepted names).
std::string_view ResizeMethodName(ResizeMethod method);
Result<ResizeMethod> ParseResizeMethod(std::string_view name);

}  // namespace sluice

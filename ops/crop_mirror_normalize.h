// CropMirrorNormalize: the last image step of a training input pipeline in
// one pass over the pixels, as DALI's crop_mirror_normalize: take a centred
// crop, optionally mirror it left-right, compute (x - mean) / std per
// channel, and write it in HWC or CHW layout as float32 or float16. One pass
// reads each input byte once, where crop, flip, normalise and transpose as
// separate steps would each read and write the whole image.
//
// Input: [H, W, C] or a batch [N, H, W, C], any numeric dtype. Output:
// [h, w, C] (kHWC) or [C, h, w] (kCHW), with a leading N for a batch. The
// crop is centred as CenterCropWindow (ops/crop_image.h) places it; no crop
// keeps the whole image. mean and std hold one value per channel, or one
// for every channel; the arithmetic is float: (x - mean) * (1 / std).
// Errors: InvalidArgument for an image smaller than the crop, a channel
// count that the mean or std don't match, a wrong rank or dtype.
// Thread safety: a pure function; the output is a fresh tensor.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

enum class ImageLayout { kHWC, kCHW };

struct CropMirrorNormalizeOptions {
  // Both 0: no crop. Otherwise both positive.
  int64_t crop_height = 0;
  int64_t crop_width = 0;
  std::vector<float> mean = {0.0f};
  std::vector<float> std = {1.0f};  // no zeros
  bool mirror = false;
  ImageLayout layout = ImageLayout::kCHW;  // DALI's default
  DType dtype = DType::kFloat32;           // or kFloat16
};

// InvalidArgument for options no image can satisfy: a crop with one
// dimension 0 or a negative one, an empty mean or std, a zero std, another
// dtype than float32 or float16.
Status CheckCropMirrorNormalizeOptions(const CropMirrorNormalizeOptions& options);

// InvalidArgument unless `count` (a mean or std list's size) fits `channels`.
Status CheckChannelValues(std::string_view what, size_t count, int64_t channels);

Result<Tensor> CropMirrorNormalize(const Tensor& images, const CropMirrorNormalizeOptions& options);

// "HWC" / "CHW", and back (InvalidArgument naming the accepted names).
std::string_view ImageLayoutName(ImageLayout layout);
Result<ImageLayout> ParseImageLayout(std::string_view name);

}  // namespace sluice

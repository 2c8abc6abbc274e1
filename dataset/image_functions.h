// Built-in image element functions (for map): decoding JPEG and PNG bytes,
// resizing, cropping and normalising HWC images. Like the other built-ins
// (builtin_functions.h) they serialize into pipeline specs, infer their
// output specs exactly, and name the function and the component in every
// error; the pixel work is done by the ops/ kernels each names.
//
// Each function changes one component, named as in builtin_functions.h (an
// empty name: the only component). Images are HWC tensors: [height, width,
// channels]. The decoders take a scalar string; the other functions take an
// image, or a batch of equally sized images [N, H, W, C], so they are
// row-wise and map may hand them whole runs.
//
// Random functions (random_flip, decode_jpeg_random_crop, color_jitter,
// random_grayscale, random_crop, gaussian_blur, random_solarize,
// random_erasing, mixup)
// draw from the seed map gives each element, derived from (the function's seed,
// map's iterator, the element's position in map's input)
// (dataset/element_seeds.h): the output is the same at any parallelism,
// under autotuning and after a restore, and each epoch draws anew. With
// RandomSource::index_component (all but mixup) they draw from (seed, that
// int64 scalar component) instead, the same in every epoch, and work outside
// map too.
//
// A corrupt, truncated or empty image is a DataLoss error for that element
// only, so ignore_errors() can drop it and the iteration goes on. The error
// names the function, the component and the element: its index when the
// element has one (an int64 scalar "index", or a random function's index
// component), and when the bytes are a view of a TFRecord file's read chunk
// (tfrecord -> parse_example keeps them so), the file and the byte offset
// of the image's bytes in it: "... Premature end of JPEG file (element index
// 17; the bytes at byte offset 52133 of train-0.tfrecord)".
// Thread safety: functions are immutable; Bind, and the bound functions it
// returns, may be called concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/ops/adjust_color.h"
#include "sluice/ops/crop_mirror_normalize.h"
#include "sluice/ops/decode_image.h"
#include "sluice/ops/decode_jpeg.h"
#include "sluice/ops/decode_png.h"
#include "sluice/ops/flip_image.h"
#include "sluice/ops/gaussian_blur.h"
#include "sluice/ops/pad_image.h"
#include "sluice/ops/random_resized_crop.h"
#include "sluice/ops/resize_image.h"

namespace sluice {

// A scalar string of JPEG bytes to uint8 [H, W, C] (ops/decode_jpeg.h):
// C = options.channels, unknown for channels 0.
Result<ElementFunctionPtr> MakeDecodeJpegFunction(std::string component,
                                                  DecodeJpegOptions options = {});

// A scalar string of PNG bytes to uint8 [H, W, C] (ops/decode_png.h).
Result<ElementFunctionPtr> MakeDecodePngFunction(std::string component,
                                                 DecodePngOptions options = {});

// A scalar string of JPEG or PNG bytes, told apart by signature, to uint8
// [H, W, C] (ops/decode_image.h).
Result<ElementFunctionPtr> MakeDecodeImageFunction(std::string component,
                                                   DecodeImageOptions options = {});

// Resizes an image (or batch) to options.height x options.width as
// tf.image.resize (ops/resize_image.h): float32 out, except kNearest, which
// keeps the dtype.
Result<ElementFunctionPtr> MakeResizeFunction(std::string component, ResizeOptions options);

// The centred height x width window of an image (or of each image of a
// batch), placed as torchvision's CenterCrop (ops/crop_image.h); same dtype.
// An image smaller than the crop is InvalidArgument (at Bind when the spec
// says so, else for that element).
Result<ElementFunctionPtr> MakeCenterCropFunction(std::string component, int64_t height,
                                                  int64_t width);

// Centred crop, optional mirror, (x - mean) / std, HWC or CHW, float32 or
// float16, in one pass (ops/crop_mirror_normalize.h, DALI's
// crop_mirror_normalize).
Result<ElementFunctionPtr> MakeCropMirrorNormalizeFunction(std::string component,
                                                           CropMirrorNormalizeOptions options);

// Where a random function's numbers come from: uniform number k of an
// element is a counter-based function of (element seed, k)
// (ops/counter_rng.h).
struct RandomSource {
  // Unset: map derives the function's seed from the pipeline seed
  // (dataset/element_seeds.h); with index_component, unset means 0.
  std::optional<uint64_t> seed;
  // Empty: the element seed map passes. Else an int64 scalar component
  // (enumerate's "index"): draws from ElementStream(seed, its value).
  std::string index_component;
};

// The uniform numbers of the element whose seed is `element_seed` (map's,
// BoundElementFunction::apply_seeded).
UniformStream SeededStream(uint64_t element_seed);

// The uniform numbers a random function with `seed` draws for the element
// at `index`: a SplitMix64 stream whose state mixes both, so no two elements
// (nor two seeds) share one and no draw depends on another element.
UniformStream ElementStream(uint64_t seed, int64_t index);

// Flips the image (or batch) of each element left-right (or upside down)
// with `probability`, as tf.image.random_flip_left_right. Same dtype and shape.
struct RandomFlipOptions {
  FlipDirection direction = FlipDirection::kLeftRight;
  double probability = 0.5;  // in [0, 1]
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomFlipFunction(std::string component, RandomFlipOptions options);

// Decode + RandomResizedCrop fused: reads the JPEG's size, picks the window
// by torchvision's rule (ops/random_resized_crop.h), decodes only that window
// (DecodeJpegCropRows) and resizes it in place to height x width with
// `method` and antialias (bilinear by default, as torchvision's
// RandomResizedCrop; bicubic as timm's and DeiT's): float32 [height, width,
// C] (uint8 for nearest). With scaled_idct, a window at least twice height x width is
// decoded at the scale M/8 of ops/jpeg_crop_scale.h (the smallest of 1/8 to
// 4/8 that keeps it at least height x width) before the resize: faster, and
// pixels within a few levels of the full-size window's resize.
struct DecodeJpegRandomCropOptions {
  int64_t height = 224;
  int64_t width = 224;
  RandomResizedCropOptions crop;
  ResizeMethod method = ResizeMethod::kBilinear;
  bool scaled_idct = true;
  DecodeJpegOptions decode{.channels = 3};  // ratio must be 1
  RandomSource random;
};
Result<ElementFunctionPtr> MakeDecodeJpegRandomCropFunction(std::string component,
                                                            DecodeJpegRandomCropOptions options);

// torchvision's ColorJitter (ops/adjust_color.h): per element, brightness,
// contrast and saturation factors drawn uniformly from [max(0, 1 - x),
// 1 + x] and a hue shift from [-hue, hue], applied in a random order (as
// torchvision's randperm); a parameter of 0 leaves its step out. uint8 or
// float32 images of 1 or 3 channels (a batch is adjusted alike); same dtype
// and shape.
// With `probability` below 1, an element is jittered only with that
// probability, and else left as it is (torchvision's RandomApply([ColorJitter
// (...)], p), as SimCLR and MoCo augment).
struct ColorJitterOptions {
  double brightness = 0;   // >= 0
  double contrast = 0;     // >= 0
  double saturation = 0;   // >= 0
  double hue = 0;          // in [0, 0.5]
  float max_value = 255;   // white of a float32 image: 255 for decoded pixels, 1 for [0, 1]
  double probability = 1;  // in [0, 1]
  RandomSource random;
};
Result<ElementFunctionPtr> MakeColorJitterFunction(std::string component, ColorJitterOptions options);

// The steps, in order, that color_jitter applies to the element whose
// stream is `uniform`: none when draw 8 is not below the probability, else
// the order from draws 0-2 (a Fisher-Yates shuffle of brightness, contrast,
// saturation, hue) and the factors from draws 4-7.
std::vector<ColorAdjustment> DrawColorJitter(const ColorJitterOptions& options, const UniformStream& uniform);

// torchvision's RandomGrayscale: with `probability`, an element's RGB image
// (or batch) becomes its grayscale 0.2989 R + 0.587 G + 0.114 B in every
// channel, as adjust_color's saturation 0 makes it (clamped to [0, white],
// a uint8 result rounded to nearest); a one-channel image is left as it is.
// uint8 or float32 images of 1 or 3 channels; same dtype and shape.
struct RandomGrayscaleOptions {
  double probability = 0.1;  // in [0, 1]; torchvision's default
  float max_value = 255;     // white of a float32 image, as color_jitter's
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomGrayscaleFunction(std::string component, RandomGrayscaleOptions options);

// torchvision's RandomCrop: the image (or batch) padded by `padding` in
// `padding_mode` (fill: `fill`, converted to the image's dtype as tf.cast
// converts, saturating), then with pad_if_needed, a dimension still smaller
// than the crop padded on both sides by what it lacks (in the same mode, as
// torchvision pads the padded image), then the height x width window at a
// uniform place: top from draw 0, left from draw 1. Any numeric dtype, kept;
// [height, width, C]. An image that even padded is smaller than the crop,
// or too small for reflect or symmetric padding, is InvalidArgument for
// that element. With no padding it is tf.image.random_crop of an image.
// Crop sides are at most 65535, paddings at most 2^27 a side.
struct RandomCropOptions {
  int64_t height = 0;  // > 0
  int64_t width = 0;   // > 0
  ImagePadding padding;
  bool pad_if_needed = false;
  PaddingMode padding_mode = PaddingMode::kConstant;
  double fill = 0;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomCropFunction(std::string component, RandomCropOptions options);

// torchvision's GaussianBlur (ops/gaussian_blur.h), as SimCLR, BYOL and DINO
// augment: sigma drawn uniformly from [sigma_min, sigma_max] per element
// (draw 0), the same along both axes; with `probability` below 1 an element
// is blurred only with that chance (draw 1; torchvision's RandomApply).
// kernel_height x kernel_width, each odd: note that torchvision's
// kernel_size pair is (x, y), width first. uint8 or float32 images (or
// batches); same dtype and shape.
struct RandomGaussianBlurOptions {
  int64_t kernel_height = 0;  // odd, > 0
  int64_t kernel_width = 0;   // odd, > 0
  double sigma_min = 0.1;     // > 0; torchvision's default range
  double sigma_max = 2.0;     // >= sigma_min
  double probability = 1;     // in [0, 1]
  RandomSource random;
};
Result<ElementFunctionPtr> MakeGaussianBlurFunction(std::string component, RandomGaussianBlurOptions options);

// torchvision's RandomSolarize: with `probability` (draw 0), every value of
// an element's image at or above `threshold` becomes white minus it
// (ops/solarize.h); white is 255 for uint8 and max_value for float32. Any
// image shape; same dtype and shape. A threshold above a uint8 image's 255
// is InvalidArgument for that element, as torchvision refuses it.
struct RandomSolarizeOptions {
  double threshold = 128;    // in [0, max_value]
  double probability = 0.5;  // in [0, 1]; torchvision's default
  float max_value = 255;     // white of a float32 image, as color_jitter's
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomSolarizeFunction(std::string component, RandomSolarizeOptions options);

// torchvision's RandomErasing (Zhong et al.; DeiT's recipe), on a
// normalised image: with `probability` (draw 0), a box of the image is
// overwritten: up to 10 attempts, attempt a drawing the box's area as a
// share in [scale_min, scale_max] of the image's (draw 1 + 4a) and its
// aspect ratio log-uniformly in [ratio_min, ratio_max] (draw 2 + 4a), sides
// rounded half to even, kept when both are smaller than the image's, placed
// uniformly (draws 3 + 4a and 4 + 4a); no attempt kept leaves the image as
// it is. The box takes `value` (one value, or one per channel) or, with
// random_value, standard normal values (torchvision's value="random"; from
// draws 64 on). uint8 (values converted, saturating; no random_value) or
// float32 images [C, H, W] (layout CHW, crop_mirror_normalize's default) or
// [H, W, C], or batches of them (one box for all, as torchvision's); same
// dtype and shape.
struct RandomErasingOptions {
  double probability = 0.5;  // in [0, 1]
  double scale_min = 0.02;   // 0 < scale_min <= scale_max <= 1
  double scale_max = 0.33;
  double ratio_min = 0.3;    // 0 < ratio_min <= ratio_max
  double ratio_max = 3.3;
  std::vector<float> value = {0};  // one, or one per channel; unused with random_value
  bool random_value = false;
  ImageLayout layout = ImageLayout::kCHW;
  RandomSource random;
};
Result<ElementFunctionPtr> MakeRandomErasingFunction(std::string component, RandomErasingOptions options);

// timm's Mixup and CutMix (timm.data.Mixup in batch mode), mapped after
// batch(): with `probability` (draw 0) a batch's images are mixed with the
// batch flipped, image i with image N-1-i: with both alphas above 0 by
// CutMix with switch_probability (draw 1), else by the one whose alpha is;
// lam ~ Beta(alpha, alpha) (draws from 16). Mixup makes x * lam + flip(x) *
// (1 - lam); CutMix pastes the flipped batch's window (ops/mixup.h's
// CutmixWindow, centred by draws 2 and 3) and lam becomes the share of each
// image kept. The labels become float32 [N, K] rows, y * lam + flip(y) *
// (1 - lam): from class ids one-hot with label_smoothing (num_classes K),
// or the float32 rows [N, K] given. Images: float32 [N, C, H, W] (layout
// CHW, crop_mirror_normalize's default) or [N, H, W, C]. It draws from the
// seed map gives each batch, so it works under map only.
struct MixupOptions {
  std::string label_component;     // required
  int64_t num_classes = 0;         // K for class id labels; 0: the labels are rows [N, K]
  double mixup_alpha = 1.0;        // >= 0; timm's defaults
  double cutmix_alpha = 0.0;       // >= 0; one of the two above 0
  double switch_probability = 0.5;  // of CutMix, when both alphas are above 0
  double probability = 1.0;        // that a batch is mixed at all
  double label_smoothing = 0.1;    // in [0, 1)
  ImageLayout layout = ImageLayout::kCHW;
  std::optional<uint64_t> seed;    // unset: from the pipeline seed, as the random functions'
};
Result<ElementFunctionPtr> MakeMixupFunction(std::string image_component, MixupOptions options);

namespace spec {
class ElementFunction;
class Mixup;
}  // namespace spec

// The image function a spec message describes (builtin_functions.cc
// dispatches here): decoders in ImageDecodeFunctionFromSpec, random
// functions in ImageRandomFunctionFromSpec (random_crop, gaussian_blur,
// random_solarize and random_erasing in ImageAugmentFunctionFromSpec), the
// others in
// ImageTransformFunctionFromSpec.
Result<ElementFunctionPtr> ImageDecodeFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> ImageTransformFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> ImageRandomFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> ImageAugmentFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> MixupFunctionFromSpec(const spec::Mixup& node);

}  // namespace sluice

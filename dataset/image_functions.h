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
// A corrupt, truncated or empty image is a DataLoss error for that element
// only, so ignore_errors() can drop it and the iteration goes on.
// Thread safety: functions are immutable; Bind, and the bound functions it
// returns, may be called concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sluice/dataset/functions.h"
#include "sluice/ops/crop_mirror_normalize.h"
#include "sluice/ops/decode_image.h"
#include "sluice/ops/decode_jpeg.h"
#include "sluice/ops/decode_png.h"
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

namespace spec {
class ElementFunction;
}  // namespace spec

// The image function a spec message describes (builtin_functions.cc
// dispatches here): decoders in ImageDecodeFunctionFromSpec, the others in
// ImageTransformFunctionFromSpec.
Result<ElementFunctionPtr> ImageDecodeFunctionFromSpec(const spec::ElementFunction& fn);
Result<ElementFunctionPtr> ImageTransformFunctionFromSpec(const spec::ElementFunction& fn);

}  // namespace sluice

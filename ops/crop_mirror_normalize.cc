#include "sluice/ops/crop_mirror_normalize.h"

#include <type_traits>

#include "sluice/ops/crop_image.h"
#include "sluice/ops/image_size.h"

namespace sluice {
namespace {

// One image's window to `out`, in the output layout. The layout and the
// mirror are template arguments, and so is the channel count where it is
// known (1, 3 or 4; 0: `channels`), so that nothing is decided inside the
// loops and each row's loop is straight and vectorisable; the values are
// the same floats either way.
template <int Channels, ImageLayout Layout, bool Mirror, typename In, typename Out>
void NormalizeImage(const In* in, int64_t in_width, int64_t channels_at_run_time, const CropWindow& window,
                    const float* __restrict mean, const float* __restrict inv_std, Out* __restrict out) {
  const int64_t channels = Channels > 0 ? Channels : channels_at_run_time;
  const int64_t width = window.width, plane = window.height * width;
  for (int64_t y = 0; y < window.height; ++y) {
    const In* __restrict row = in + ((window.top + y) * in_width + window.left) * channels;
    for (int64_t x = 0; x < width; ++x) {
      const In* pixel = row + (Mirror ? width - 1 - x : x) * channels;
      for (int64_t c = 0; c < channels; ++c) {
        const float value = (static_cast<float>(pixel[c]) - mean[c]) * inv_std[c];
        if constexpr (Layout == ImageLayout::kHWC) {
          out[(y * width + x) * channels + c] = static_cast<Out>(value);
        } else {
          out[c * plane + y * width + x] = static_cast<Out>(value);
        }
      }
    }
  }
}

// NormalizeImage with the layout and the mirror picked at run time.
template <int Channels, typename In, typename Out>
void NormalizeImageWithChannels(const In* in, int64_t in_width, int64_t channels, const CropWindow& window,
                                bool mirror, ImageLayout layout, const float* mean, const float* inv_std, Out* out) {
  constexpr ImageLayout kHWC = ImageLayout::kHWC, kCHW = ImageLayout::kCHW;
  if (layout == kHWC) {
    if (mirror) return NormalizeImage<Channels, kHWC, true>(in, in_width, channels, window, mean, inv_std, out);
    return NormalizeImage<Channels, kHWC, false>(in, in_width, channels, window, mean, inv_std, out);
  }
  if (mirror) return NormalizeImage<Channels, kCHW, true>(in, in_width, channels, window, mean, inv_std, out);
  return NormalizeImage<Channels, kCHW, false>(in, in_width, channels, window, mean, inv_std, out);
}

// One image, with the channel count known at compile time for 1, 3 or 4
// channels of uint8 or float32 (decoded and resized images).
template <typename In, typename Out>
void NormalizeOneImage(const In* in, int64_t in_width, int64_t channels, const CropWindow& window, bool mirror,
                       ImageLayout layout, const float* mean, const float* inv_std, Out* out) {
  if constexpr (std::is_same_v<In, uint8_t> || std::is_same_v<In, float>) {
    switch (channels) {
      case 1: return NormalizeImageWithChannels<1>(in, in_width, 1, window, mirror, layout, mean, inv_std, out);
      case 3: return NormalizeImageWithChannels<3>(in, in_width, 3, window, mirror, layout, mean, inv_std, out);
      case 4: return NormalizeImageWithChannels<4>(in, in_width, 4, window, mirror, layout, mean, inv_std, out);
      default: break;
    }
  }
  NormalizeImageWithChannels<0>(in, in_width, channels, window, mirror, layout, mean, inv_std, out);
}

// `values` (one, or one per channel) for each of `channels`.
std::vector<float> PerChannel(const std::vector<float>& values, int64_t channels) {
  return values.size() == 1 ? std::vector<float>(channels, values[0]) : values;
}

}  // namespace

std::string_view ImageLayoutName(ImageLayout layout) {
  return layout == ImageLayout::kHWC ? "HWC" : "CHW";
}

Result<ImageLayout> ParseImageLayout(std::string_view name) {
  if (name == "HWC") return ImageLayout::kHWC;
  if (name == "CHW") return ImageLayout::kCHW;
  return InvalidArgumentError("unknown layout '", name, "' (expected HWC or CHW)");
}

Status CheckCropMirrorNormalizeOptions(const CropMirrorNormalizeOptions& options) {
  const bool no_crop = options.crop_height == 0 && options.crop_width == 0;
  if (!no_crop && (options.crop_height <= 0 || options.crop_width <= 0)) {
    return InvalidArgumentError("crop must be empty or two positive dims, got [", options.crop_height,
                                ", ", options.crop_width, "]");
  }
  if (options.mean.empty() || options.std.empty()) {
    return InvalidArgumentError("mean and std need at least one value each");
  }
  for (float s : options.std) {
    if (s == 0.0f) return InvalidArgumentError("std must not be 0");
  }
  if (options.dtype != DType::kFloat32 && options.dtype != DType::kFloat16) {
    return InvalidArgumentError("dtype must be float32 or float16, got ", options.dtype);
  }
  return OkStatus();
}

Status CheckChannelValues(std::string_view what, size_t count, int64_t channels) {
  if (count == 1 || static_cast<int64_t>(count) == channels) return OkStatus();
  return InvalidArgumentError(what, " has ", count, " values for an image of ", channels,
                              " channels (expected 1 or ", channels, ")");
}

Result<Tensor> CropMirrorNormalize(const Tensor& images, const CropMirrorNormalizeOptions& options) {
  SLUICE_RETURN_IF_ERROR(CheckCropMirrorNormalizeOptions(options));
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  SLUICE_RETURN_IF_ERROR(CheckChannelValues("mean", options.mean.size(), dims.channels));
  SLUICE_RETURN_IF_ERROR(CheckChannelValues("std", options.std.size(), dims.channels));
  CropWindow window{.top = 0, .left = 0, .height = dims.height, .width = dims.width};
  if (options.crop_height != 0) {
    SLUICE_ASSIGN_OR_RETURN(window, CenterCropWindow(dims.height, dims.width, options.crop_height,
                                                     options.crop_width));
  }
  const std::vector<float> mean = PerChannel(options.mean, dims.channels);
  std::vector<float> inv_std = PerChannel(options.std, dims.channels);
  for (float& s : inv_std) s = 1.0f / s;
  std::vector<int64_t> out_dims = options.layout == ImageLayout::kHWC
                                      ? std::vector<int64_t>{window.height, window.width, dims.channels}
                                      : std::vector<int64_t>{dims.channels, window.height, window.width};
  if (dims.batched) out_dims.insert(out_dims.begin(), dims.batch);
  // No larger than the input's element count.
  Tensor out = Tensor::AllocateUninitialized(options.dtype, Shape(out_dims));
  const int64_t in_image = dims.height * dims.width * dims.channels;
  const int64_t out_image = window.height * window.width * dims.channels;
  VisitNumericDType(images.dtype(), [&](auto in_zero) {
    using In = decltype(in_zero);
    const In* in = images.data<In>();
    for (int64_t i = 0; i < dims.batch; ++i) {
      if (options.dtype == DType::kFloat32) {
        NormalizeOneImage(in + i * in_image, dims.width, dims.channels, window, options.mirror,
                       options.layout, mean.data(), inv_std.data(), out.mutable_data<float>() + i * out_image);
      } else {
        NormalizeOneImage(in + i * in_image, dims.width, dims.channels, window, options.mirror,
                       options.layout, mean.data(), inv_std.data(), out.mutable_data<Float16>() + i * out_image);
      }
    }
  });
  return out;
}

}  // namespace sluice

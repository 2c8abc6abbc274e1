#include "sluice/ops/tone_curve.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "sluice/ops/image_size.h"

namespace sluice {

namespace {

// Calls remap(values of channel c of image i, strided by channels, count)
// for every image and channel: the pixels of one channel are every
// channels-th value of its image.
template <typename T, typename Remap>
void ForEachChannel(const T* in, T* out, const ImageDims& dims, Remap remap) {
  const int64_t pixels = dims.height * dims.width, channels = dims.channels;
  for (int64_t i = 0; i < dims.batch; ++i) {
    for (int64_t c = 0; c < channels; ++c) {
      const int64_t first = i * pixels * channels + c;
      remap(in + first, out + first, channels, pixels);
    }
  }
}

Result<ImageDims> Uint8Image(std::string_view op, const Tensor& images) {
  if (images.dtype() != DType::kUInt8) {
    return InvalidArgumentError(op, ": expected a uint8 image, got ", images.dtype(), images.shape());
  }
  return ImageDimsOf(images);
}

}  // namespace

Result<Tensor> Posterize(const Tensor& images, int bits) {
  SLUICE_RETURN_IF_ERROR(Uint8Image("posterize", images).status());
  if (bits < 0 || bits > 8) return InvalidArgumentError("posterize: bits must be in [0, 8], got ", bits);
  const auto mask = static_cast<uint8_t>(0xff00 >> bits);
  Tensor out = Tensor::AllocateUninitialized(DType::kUInt8, images.shape());
  const uint8_t* in = images.data<uint8_t>();
  uint8_t* dst = out.mutable_data<uint8_t>();
  const int64_t count = images.NumElements();
  for (int64_t i = 0; i < count; ++i) dst[i] = in[i] & mask;
  return out;
}

Result<Tensor> Equalize(const Tensor& images) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, Uint8Image("equalize", images));
  Tensor out = Tensor::AllocateUninitialized(DType::kUInt8, images.shape());
  ForEachChannel(images.data<uint8_t>(), out.mutable_data<uint8_t>(), dims,
                 [](const uint8_t* in, uint8_t* dst, int64_t stride, int64_t count) {
                   std::array<int64_t, 256> histogram{};
                   for (int64_t p = 0; p < count; ++p) ++histogram[in[p * stride]];
                   // The count of all values present but the last (the largest).
                   int64_t last = 0;
                   for (int v = 255; v >= 0; --v) {
                     if (histogram[static_cast<size_t>(v)] != 0) {
                       last = histogram[static_cast<size_t>(v)];
                       break;
                     }
                   }
                   const int64_t step = (count - last) / 255;
                   std::array<uint8_t, 256> table;
                   if (step == 0) {
                     for (int v = 0; v < 256; ++v) table[static_cast<size_t>(v)] = static_cast<uint8_t>(v);
                   } else {
                     int64_t below = 0;  // the count of values below v
                     for (int v = 0; v < 256; ++v) {
                       table[static_cast<size_t>(v)] =
                           static_cast<uint8_t>(std::min<int64_t>((below + step / 2) / step, 255));
                       below += histogram[static_cast<size_t>(v)];
                     }
                   }
                   for (int64_t p = 0; p < count; ++p) dst[p * stride] = table[in[p * stride]];
                 });
  return out;
}

namespace {

// The channel's stretch: (v - minimum) * scale in float32, clamped to
// [0, white]; a flat channel keeps its values (torchvision's non-finite
// scale). torch divides a number by a tensor as the tensor's reciprocal
// times the number, so the scale is rounded twice, as here.
struct Stretch {
  float minimum = 0, scale = 1, white = 255;
  Stretch(float lowest, float highest, float white_value) : minimum(lowest), white(white_value) {
    scale = (1.0f / (highest - lowest)) * white;
    if (!std::isfinite(scale)) {
      minimum = 0;
      scale = 1;
    }
  }
  float operator()(float v) const { return std::clamp((v - minimum) * scale, 0.0f, white); }
};

void AutocontrastFloat(const float* in, float* out, const ImageDims& dims, float white) {
  ForEachChannel(in, out, dims, [white](const float* values, float* dst, int64_t stride, int64_t count) {
    if (count == 0) return;
    float lowest = values[0], highest = values[0];
    for (int64_t p = 1; p < count; ++p) {
      lowest = std::min(lowest, values[p * stride]);
      highest = std::max(highest, values[p * stride]);
    }
    const Stretch stretch(lowest, highest, white);
    for (int64_t p = 0; p < count; ++p) dst[p * stride] = stretch(values[p * stride]);
  });
}

// uint8 by a table per channel: each image's channels' extremes in one pass,
// then each value through its channel's 256 stretched values (truncated, as
// torch casts).
void AutocontrastUint8(const uint8_t* in, uint8_t* out, const ImageDims& dims) {
  const int64_t channels = dims.channels, values = dims.height * dims.width * channels;
  if (values == 0) return;
  std::vector<uint8_t> lowest(static_cast<size_t>(channels)), highest(static_cast<size_t>(channels));
  std::vector<uint8_t> tables(static_cast<size_t>(channels) * 256);
  for (int64_t i = 0; i < dims.batch; ++i) {
    const uint8_t* image = in + i * values;
    uint8_t* dst = out + i * values;
    std::copy_n(image, channels, lowest.begin());
    std::copy_n(image, channels, highest.begin());
    for (int64_t k = 0; k < values; k += channels) {
      for (int64_t c = 0; c < channels; ++c) {
        lowest[c] = std::min(lowest[c], image[k + c]);
        highest[c] = std::max(highest[c], image[k + c]);
      }
    }
    for (int64_t c = 0; c < channels; ++c) {
      const Stretch stretch(lowest[c], highest[c], 255);
      for (int v = 0; v < 256; ++v) {
        tables[static_cast<size_t>(c * 256 + v)] = static_cast<uint8_t>(stretch(static_cast<float>(v)));
      }
    }
    for (int64_t k = 0; k < values; k += channels) {
      for (int64_t c = 0; c < channels; ++c) dst[k + c] = tables[static_cast<size_t>(c * 256 + image[k + c])];
    }
  }
}

}  // namespace

Result<Tensor> Autocontrast(const Tensor& images, float max_value) {
  const bool uint8 = images.dtype() == DType::kUInt8;
  if (!uint8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("autocontrast: expected a uint8 or float32 image, got ", images.dtype(),
                                images.shape());
  }
  if (!(max_value > 0) || !std::isfinite(max_value)) {
    return InvalidArgumentError("autocontrast: max_value must be positive and finite, got ", max_value);
  }
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  if (uint8) {
    AutocontrastUint8(images.data<uint8_t>(), out.mutable_data<uint8_t>(), dims);
  } else {
    AutocontrastFloat(images.data<float>(), out.mutable_data<float>(), dims, max_value);
  }
  return out;
}

}  // namespace sluice

#include "sluice/ops/erase_image.h"

#include <cstring>

namespace sluice {

Result<Tensor> EraseImage(const Tensor& images, const CropWindow& window, ImageLayout layout, const Tensor& fill) {
  const bool uint8 = images.dtype() == DType::kUInt8;
  if ((!uint8 && images.dtype() != DType::kFloat32) || (images.rank() != 3 && images.rank() != 4)) {
    return InvalidArgumentError("erase: expected a uint8 or float32 image ",
                                layout == ImageLayout::kCHW ? "[C, H, W]" : "[H, W, C]", " or a batch of them, got ",
                                images.dtype(), images.shape());
  }
  const bool chw = layout == ImageLayout::kCHW;
  const int64_t h = images.rank() - 3;  // the first image dim
  const int64_t channels = images.dim(chw ? h : h + 2);
  const int64_t height = images.dim(chw ? h + 1 : h), width = images.dim(chw ? h + 2 : h + 1);
  SLUICE_RETURN_IF_ERROR(CheckWindowInside(window, height, width).WithContext("erase"));
  const Shape values_shape =
      chw ? Shape{channels, window.height, window.width} : Shape{window.height, window.width, channels};
  const bool per_channel = fill.shape() == Shape{channels};
  if (fill.dtype() != DType::kFloat32 || (!per_channel && fill.shape() != values_shape)) {
    return InvalidArgumentError("erase: fill must be float32 ", Shape{channels}, " or ", values_shape, ", got ",
                                fill.dtype(), fill.shape());
  }
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  std::memcpy(out.raw_data(), images.raw_data(), static_cast<size_t>(images.NumElements()) * DTypeSize(images.dtype()));
  const int64_t count = images.rank() == 4 ? images.dim(0) : 1;
  const int64_t image_values = channels * height * width;
  const float* values = fill.data<float>();
  // The fill value of channel c at window pixel (y, x).
  const auto value = [&](int64_t c, int64_t y, int64_t x) {
    if (per_channel) return values[c];
    return chw ? values[(c * window.height + y) * window.width + x] : values[(y * window.width + x) * channels + c];
  };
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t y = 0; y < window.height; ++y) {
        for (int64_t x = 0; x < window.width; ++x) {
          const int64_t row = window.top + y, column = window.left + x;
          const int64_t at =
              i * image_values + (chw ? (c * height + row) * width + column : (row * width + column) * channels + c);
          if (uint8) {
            out.mutable_data<uint8_t>()[at] = ConvertValue<uint8_t>(value(c, y, x));
          } else {
            out.mutable_data<float>()[at] = value(c, y, x);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace sluice

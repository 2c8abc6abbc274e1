// Fuzzes the image decoders on untrusted bytes: the first 8 input bytes pick
// the decoder and its options ([0]-[3] the crop window, [0]'s top bit the
// scaled IDCT, [4] the decoder, [5]-[6] the resize target, [7] channels,
// ratio, DCT method and the resize's method), the rest is the image. [4]'s
// bit 2 runs the colour adjustments (factors from [5]-[7]) on a decoded
// image; its bit 3 runs them instead on the bytes as a float32 RGB image,
// NaN and infinities included. DecodeImage (by signature), DecodeJpeg
// (channels, ratio, DCT method), the crop-window decode (a window placed by
// the option bytes, with and without the scaled IDCT's target) followed by
// the in-place resize that decode_jpeg_random_crop runs on its rows
// (bilinear, or bicubic), and DecodePng. The pixel bound is small, so that a
// header claiming a huge image is refused rather than allocated. Nothing may
// crash, hang, read or write outside a buffer, or trip a sanitizer; errors
// are fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <string_view>

#include "touch.h"
#include "sluice/ops/adjust_color.h"
#include "sluice/ops/decode_image.h"
#include "sluice/ops/decode_jpeg.h"
#include "sluice/ops/decode_png.h"
#include "sluice/ops/resize_image.h"

namespace {

using namespace sluice;
using fuzz::TouchTensor;

constexpr size_t kOptionBytes = 8;
constexpr int64_t kMaxPixels = int64_t{1} << 22;

// A window of an image of height x width from option bytes 0-3 (byte 0's
// low 7 bits): each side at least 1, inside the image.
CropWindow WindowFrom(const uint8_t* option, int64_t height, int64_t width) {
  const int64_t window_height = 1 + (height - 1) * (option[0] & 0x7f) / 127;
  const int64_t window_width = 1 + (width - 1) * option[1] / 255;
  return CropWindow{.top = (height - window_height) * option[2] / 255,
                    .left = (width - window_width) * option[3] / 255,
                    .height = window_height,
                    .width = window_width};
}

void DecodeCrop(std::string_view bytes, const uint8_t* option, const DecodeJpegOptions& jpeg) {
  const bool scaled = (option[0] & 0x80) != 0;
  // The resize's target: small, or (scaled) what the window is decoded for.
  const int64_t out_height = 1 + option[5] % 64, out_width = 1 + option[6] % 64;
  const CropResizeTarget target = scaled ? CropResizeTarget{.height = out_height, .width = out_width}
                                         : CropResizeTarget{};
  DecodeJpegOptions options = jpeg;
  if (scaled) options.ratio = 1;
  auto choose = [option](int64_t height, int64_t width) -> Result<CropWindow> {
    return WindowFrom(option, height, width);
  };
  Result<DecodedJpegWindow> decoded = DecodeJpegCropRows(bytes, choose, options, target);
  if (!decoded.ok()) return;
  TouchTensor(decoded->rows);
  // Option byte 7's bit 5: bicubic (bit 6: with antialias) instead of antialiased bilinear.
  const bool bicubic = (option[7] & 0x20) != 0;
  Result<Tensor> resized = ResizeImageWindow(
      decoded->rows, decoded->window,
      {.height = out_height, .width = out_width, .method = bicubic ? ResizeMethod::kBicubic : ResizeMethod::kBilinear,
       .antialias = !bicubic || (option[7] & 0x40) != 0});
  if (resized.ok()) TouchTensor(*resized);
}

// Brightness, contrast, saturation and hue, in an order and with factors
// from option bytes 5-7.
void Adjust(const Tensor& image, const uint8_t* option) {
  ColorAdjustment steps[] = {{ColorProperty::kBrightness, option[5] / 64.0},
                             {ColorProperty::kContrast, option[6] / 64.0},
                             {ColorProperty::kSaturation, option[7] / 64.0},
                             {ColorProperty::kHue, (option[5] - 128) / 256.0}};
  if (option[6] & 1) std::swap(steps[0], steps[3]);
  Result<Tensor> adjusted = AdjustColor(image, steps);
  if (adjusted.ok()) TouchTensor(*adjusted);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kOptionBytes) return 0;
  const uint8_t* option = data;
  const std::string_view bytes(reinterpret_cast<const char*>(data + kOptionBytes), size - kOptionBytes);
  static constexpr int kJpegChannels[] = {0, 1, 3};
  static constexpr int kRatios[] = {1, 2, 4, 8};
  static constexpr int kPngChannels[] = {0, 1, 3, 4};
  const DecodeJpegOptions jpeg{.channels = kJpegChannels[option[7] % 3],
                               .ratio = kRatios[(option[7] >> 2) % 4],
                               .dct_method = (option[7] & 0x10) != 0 ? JpegDctMethod::kFast : JpegDctMethod::kAccurate,
                               .max_pixels = kMaxPixels};
  if (option[4] & 0x08) {
    const auto pixels = static_cast<int64_t>(std::min<size_t>(bytes.size() / 12, kMaxPixels));
    Tensor floats = Tensor::AllocateUninitialized(DType::kFloat32, Shape{1, pixels, 3});
    std::memcpy(floats.mutable_data<float>(), bytes.data(), static_cast<size_t>(pixels) * 12);
    Adjust(floats, option);
    return 0;
  }
  Result<Tensor> image = InvalidArgumentError("not decoded");
  switch (option[4] % 4) {
    case 0:
      image = DecodeImage(bytes, {.channels = kJpegChannels[option[7] % 3], .max_pixels = kMaxPixels});
      break;
    case 1:
      image = DecodeJpeg(bytes, jpeg);
      break;
    case 2:
      DecodeCrop(bytes, option, jpeg);
      break;
    case 3:
      image = DecodePng(bytes, {.channels = kPngChannels[option[7] % 4], .max_pixels = kMaxPixels});
      break;
  }
  if (!image.ok()) return 0;
  TouchTensor(*image);
  if (option[4] & 0x04) Adjust(*image, option);
  return 0;
}

#include "sluice/ops/flip_image.h"

#include <cstring>

#include "sluice/ops/image_size.h"
#include "sluice/ops/pixel_copy.h"

namespace sluice {

Result<Tensor> FlipImage(const Tensor& images, FlipDirection direction) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  const size_t pixel = dims.channels * DTypeSize(images.dtype());
  const size_t row = dims.width * pixel;
  const auto* in = static_cast<const char*>(images.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  WithPixelCopy(pixel, [&](auto copy_pixel) {
    for (int64_t i = 0; i < dims.batch; ++i) {
      for (int64_t y = 0; y < dims.height; ++y) {
        const int64_t from_y = direction == FlipDirection::kUpDown ? dims.height - 1 - y : y;
        const char* src = in + (i * dims.height + from_y) * row;
        char* to = dst + (i * dims.height + y) * row;
        if (direction == FlipDirection::kUpDown) {
          std::memcpy(to, src, row);
          continue;
        }
        for (int64_t x = 0; x < dims.width; ++x) copy_pixel(to + x * pixel, src + (dims.width - 1 - x) * pixel);
      }
    }
  });
  return out;
}

}  // namespace sluice

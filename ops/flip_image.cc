#include "sluice/ops/flip_image.h"

#include <cstring>

#include "sluice/ops/image_size.h"

namespace sluice {
namespace {

// One row's `width` pixels of PixelBytes each, in reverse order: a copy of
// known size per pixel, which the compiler makes a load and a store.
template <size_t PixelBytes>
void ReverseRow(const char* __restrict src, int64_t width, char* __restrict dst) {
  for (int64_t x = 0; x < width; ++x) {
    std::memcpy(dst + x * PixelBytes, src + (width - 1 - x) * PixelBytes, PixelBytes);
  }
}

// ReverseRow for pixels of any size, specialised for those of 1, 3 or 4
// channels of uint8 or float32.
void ReverseRow(const char* src, int64_t width, size_t pixel, char* dst) {
  switch (pixel) {
    case 1: return ReverseRow<1>(src, width, dst);
    case 3: return ReverseRow<3>(src, width, dst);
    case 4: return ReverseRow<4>(src, width, dst);
    case 12: return ReverseRow<12>(src, width, dst);
    case 16: return ReverseRow<16>(src, width, dst);
    default: break;
  }
  for (int64_t x = 0; x < width; ++x) std::memcpy(dst + x * pixel, src + (width - 1 - x) * pixel, pixel);
}

}  // namespace

Result<Tensor> FlipImage(const Tensor& images, FlipDirection direction) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());
  const size_t pixel = dims.channels * DTypeSize(images.dtype());
  const size_t row = dims.width * pixel;
  const auto* in = static_cast<const char*>(images.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (int64_t i = 0; i < dims.batch; ++i) {
    for (int64_t y = 0; y < dims.height; ++y) {
      const int64_t from_y = direction == FlipDirection::kUpDown ? dims.height - 1 - y : y;
      const char* src = in + (i * dims.height + from_y) * row;
      char* to = dst + (i * dims.height + y) * row;
      if (direction == FlipDirection::kUpDown) {
        std::memcpy(to, src, row);
        continue;
      }
      ReverseRow(src, dims.width, pixel, to);
    }
  }
  return out;
}

}  // namespace sluice

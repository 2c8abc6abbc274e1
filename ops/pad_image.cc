#include "sluice/ops/pad_image.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "sluice/ops/image_size.h"
#include "sluice/ops/pixel_copy.h"

namespace sluice {

std::string_view PaddingModeName(PaddingMode mode) {
  switch (mode) {
    case PaddingMode::kConstant: return "constant";
    case PaddingMode::kEdge: return "edge";
    case PaddingMode::kReflect: return "reflect";
    case PaddingMode::kSymmetric: return "symmetric";
  }
  return "unknown";
}

Result<PaddingMode> ParsePaddingMode(std::string_view name) {
  for (PaddingMode mode :
       {PaddingMode::kConstant, PaddingMode::kEdge, PaddingMode::kReflect, PaddingMode::kSymmetric}) {
    if (name == PaddingModeName(mode)) return mode;
  }
  return InvalidArgumentError("unknown padding mode '", name, "' (expected constant, edge, reflect or symmetric)");
}

int64_t PaddedSourceIndex(int64_t i, int64_t size, int64_t before, PaddingMode mode) {
  const int64_t j = i - before;
  if (j >= 0 && j < size) return j;
  switch (mode) {
    case PaddingMode::kConstant: return -1;
    case PaddingMode::kEdge: return j < 0 ? 0 : size - 1;
    case PaddingMode::kReflect: return j < 0 ? -j : 2 * (size - 1) - j;
    case PaddingMode::kSymmetric: return j < 0 ? -j - 1 : 2 * size - 1 - j;
  }
  return -1;
}

Status CheckPadding(std::string_view what, int64_t size, int64_t before, int64_t after, PaddingMode mode) {
  if (before < 0 || after < 0) {
    return InvalidArgumentError("padding of the ", what, " must be >= 0, got ", before, " and ", after);
  }
  const int64_t most = std::max(before, after);
  if ((mode == PaddingMode::kReflect && most >= size) || (mode == PaddingMode::kSymmetric && most > size)) {
    return InvalidArgumentError(PaddingModeName(mode), " padding of ", most, " needs a ", what, " of at least ",
                                mode == PaddingMode::kReflect ? most + 1 : most, ", got ", size);
  }
  return OkStatus();
}

Result<Tensor> GatherImagePixels(const Tensor& images, std::span<const int64_t> rows, std::span<const int64_t> columns,
                                 double fill) {
  SLUICE_ASSIGN_OR_RETURN(const ImageDims dims, ImageDimsOf(images));
  if (rows.empty() || columns.empty()) return InvalidArgumentError("an image gather of no rows or columns");
  for (const auto& [indices, size, what] :
       {std::tuple{rows, dims.height, "row"}, std::tuple{columns, dims.width, "column"}}) {
    for (const int64_t index : indices) {
      if (index < -1 || index >= size) {
        return InvalidArgumentError("source ", what, " ", index, " is outside the image's ", size);
      }
    }
  }
  const auto height = static_cast<int64_t>(rows.size()), width = static_cast<int64_t>(columns.size());
  const Shape shape =
      dims.batched ? Shape{dims.batch, height, width, dims.channels} : Shape{height, width, dims.channels};
  SLUICE_ASSIGN_OR_RETURN(Tensor out,
                          Tensor::TryAllocate(images.dtype(), shape, {.fill = Buffer::Fill::kUninitialized}));
  const size_t value_bytes = DTypeSize(images.dtype());
  const size_t pixel_bytes = static_cast<size_t>(dims.channels) * value_bytes;
  // One fill pixel, and one output row of fill pixels.
  std::vector<char> fill_row(static_cast<size_t>(width) * pixel_bytes);
  VisitNumericDType(images.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T value = ConvertValue<T>(fill);
    for (size_t k = 0; k < fill_row.size(); k += value_bytes) std::memcpy(fill_row.data() + k, &value, value_bytes);
  });
  // The output columns [first, first + run) copy a contiguous run of input
  // columns, found once for all rows: most of a crop's row.
  int64_t first = 0, run = 0;
  for (int64_t x = 0; x < width;) {
    int64_t end = x + 1;
    if (columns[x] >= 0) {
      while (end < width && columns[end] == columns[end - 1] + 1) ++end;
    }
    if (columns[x] >= 0 && end - x > run) first = x, run = end - x;
    x = end;
  }
  const size_t in_row = static_cast<size_t>(dims.width) * pixel_bytes;
  const size_t out_row = static_cast<size_t>(width) * pixel_bytes;
  const auto* in = static_cast<const char*>(images.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  WithPixelCopy(pixel_bytes, [&](auto copy_pixel) {
    for (int64_t i = 0; i < dims.batch; ++i) {
      const char* image = in + i * dims.height * in_row;
      for (int64_t y = 0; y < height; ++y, dst += out_row) {
        if (rows[y] < 0) {
          std::memcpy(dst, fill_row.data(), out_row);
          continue;
        }
        const char* src = image + rows[y] * in_row;
        for (int64_t x = 0; x < width; ++x) {
          if (x == first && run > 0) {
            std::memcpy(dst + x * pixel_bytes, src + columns[x] * pixel_bytes, run * pixel_bytes);
            x += run - 1;
            continue;
          }
          const char* from = columns[x] < 0 ? fill_row.data() : src + columns[x] * pixel_bytes;
          copy_pixel(dst + x * pixel_bytes, from);
        }
      }
    }
  });
  return out;
}

}  // namespace sluice

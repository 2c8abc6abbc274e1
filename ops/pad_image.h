// Padding HWC images as torchvision's Pad and RandomCrop pad them, without
// making the padded image: a padded coordinate maps back to a source row or
// column (PaddedSourceIndex), and GatherImagePixels copies the pixels at
// chosen rows and columns, or a fill value where there is none. A crop of a
// padded image is then one pass over its output.
// Thread safety: pure functions; outputs are fresh tensors.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

// How values past an edge are made (torchvision's padding_mode, NumPy's
// np.pad modes): kConstant a fill value; kEdge the edge value repeated;
// kReflect mirrored without repeating the edge (d c b | a b c d | c b a);
// kSymmetric mirrored with it (b a | a b c d | d c).
enum class PaddingMode { kConstant, kEdge, kReflect, kSymmetric };

// Values added before and after each dimension of an image.
struct ImagePadding {
  int64_t top = 0;
  int64_t bottom = 0;
  int64_t left = 0;
  int64_t right = 0;
  friend bool operator==(const ImagePadding&, const ImagePadding&) = default;
};

std::string_view PaddingModeName(PaddingMode mode);
// "constant", "edge", "reflect" or "symmetric"; else InvalidArgument.
Result<PaddingMode> ParsePaddingMode(std::string_view name);

// The source index in [0, size) of index i of a dimension of `size` padded
// by `before` values at its start, or -1 where kConstant fills.
// REQUIRES: size > 0, and i within the padding CheckPadding accepted.
int64_t PaddedSourceIndex(int64_t i, int64_t size, int64_t before, PaddingMode mode);

// InvalidArgument when a dimension of `size` cannot be padded by `before`
// and `after` in `mode`: negative padding, or kReflect padding of size or
// more (kSymmetric: more than size), as torch's pad refuses it. `what`
// names the dimension ("height").
Status CheckPadding(std::string_view what, int64_t size, int64_t before, int64_t after, PaddingMode mode);

// Image [H, W, C] (or each image of [N, H, W, C]) to [rows.size(),
// columns.size(), C] of the same dtype: output pixel (y, x) is input pixel
// (rows[y], columns[x]), or `fill` (converted as tf.cast converts, saturating)
// in every channel where either index is -1. Any numeric dtype.
// Errors: InvalidArgument for a string image, an index out of range, or an
// empty output.
Result<Tensor> GatherImagePixels(const Tensor& images, std::span<const int64_t> rows,
                                 std::span<const int64_t> columns, double fill);

}  // namespace sluice

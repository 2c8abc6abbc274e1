// What the image functions (image_functions.h) check of the specs they are
// bound to: an image component, and a decoder's input. Internal to their
// .cc files.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/element.h"
#include "sluice/dataset/component_target.h"

namespace sluice {

// "image, " for a named component, "" otherwise: the start of an image
// function's arguments in its name.
inline std::string ComponentPrefix(const std::string& component) {
  return ComponentTarget(component, ComponentTarget::WhenEmpty::kOnly).Prefix(", ");
}

// The dims of an image component's spec, [N,] H, W, C (-1 where unknown),
// and where H sits; InvalidArgument unless it is a numeric image of rank 3
// or 4.
struct ImageSpec {
  std::vector<int64_t> dims;
  size_t h = 0;  // dims[h], dims[h + 1], dims[h + 2]: height, width, channels
};

inline Result<ImageSpec> ImageSpecOf(const ComponentSpec& in) {
  if (in.dtype == DType::kString || !in.shape.known_rank() ||
      (in.shape.rank() != 3 && in.shape.rank() != 4)) {
    return InvalidArgumentError("is ", in.dtype, in.shape,
                                "; expected a numeric image [H, W, C] or a batch [N, H, W, C]");
  }
  return ImageSpec{.dims = {in.shape.dims().begin(), in.shape.dims().end()},
                   .h = static_cast<size_t>(in.shape.rank() - 3)};
}

// The output spec of a decoder: uint8 [-1, -1, channels], channels -1 when
// the image decides (channels 0). The input must be a scalar string.
inline Result<ElementSpec> DecodedSpec(std::string_view fn_name, const ElementSpec& input,
                                       size_t i, int channels) {
  const ComponentSpec& in = input[i];
  if (in.dtype != DType::kString || (in.shape.known_rank() && in.shape.rank() != 0)) {
    return InvalidArgumentError(fn_name, ": component ", input.DisplayName(i), " is ", in.dtype,
                                in.shape, "; a decoder needs a scalar string of encoded bytes");
  }
  std::vector<ComponentSpec> out = input.components();
  out[i].dtype = DType::kUInt8;
  out[i].shape = PartialShape(std::vector<int64_t>{-1, -1, channels == 0 ? -1 : channels});
  return ElementSpec(std::move(out));
}

}  // namespace sluice

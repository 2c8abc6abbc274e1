// What the image functions (image_functions.h) check of the specs they are
// bound to (an image component, a decoder's input), and how their errors
// name the element they failed on. Internal to their .cc files.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
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

// The position of the element index an error names: an int64 scalar
// component called `name` ("index", the one enumerate() makes), if the spec
// has one.
inline std::optional<size_t> ElementIndexPosition(const ElementSpec& input, const std::string& name = "index") {
  Result<size_t> i = input.IndexOf(name);
  if (!i.ok() || input[*i].dtype != DType::kInt64 || !input[*i].shape.IsCompatibleWith(Shape{})) return std::nullopt;
  return *i;
}

// The index of `element` at `position` (ElementIndexPosition), if it has one.
inline std::optional<int64_t> ElementIndex(const Element& element, std::optional<size_t> position) {
  if (!position.has_value() || *position >= element.size()) return std::nullopt;
  const Tensor& index = element[*position];
  if (index.dtype() != DType::kInt64 || index.NumElements() != 1) return std::nullopt;
  return index.data<int64_t>()[0];
}

// `status` (a function's error on `component` of an element) naming the
// element: its index when `index` is known, and, for encoded bytes that are
// a view of a TFRecord file's read chunk (tfrecord/record_reader.h), where
// they were read: "... (element index 17; the bytes at byte offset 52133 of
// train-0.tfrecord)". Costs nothing until an error.
inline Status NameFailedElement(const Status& status, const Tensor& component, std::optional<int64_t> index) {
  std::string where = index.has_value() ? StrCat("element index ", *index) : "";
  if (component.dtype() == DType::kString && component.NumElements() == 1) {
    const TString& bytes = component.data<TString>()[0];
    const Buffer::Origin origin = component.OriginOf(bytes.data());
    if (origin.source != nullptr && !bytes.empty()) {
      where += StrCat(where.empty() ? "" : "; ", "the bytes at byte offset ", origin.offset, " of ", *origin.source);
    }
  }
  if (where.empty()) return status;
  return Status(status.code(), StrCat(status.message(), " (", where, ")"));
}

}  // namespace sluice

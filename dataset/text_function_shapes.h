// The two shapes of the text functions (text_functions.h), each a function
// of one string component made from a kernel. Internal to the text
// functions' .cc files.
//
// Elementwise (to_hash_bucket_fast, lookup, lower, normalize): a string
// component of any shape becomes kernel(component), of another dtype and the
// same shape; row-wise.
//
// Pieces (split_whitespace, regex_split, wordpiece): a string scalar or [N]
// vector becomes its pieces as values + row lengths, and optionally
// per-piece companions (wordpiece's offsets). Output components, in place of
// the input component `c` (its display name), in this order:
//   c                      values: [-1] of the kernel's dtype
//   c/<companion>          int64 [-1], one per piece, for each companion
//   c/row_lengths          int64 [N], only for a [N] input
// When the [N] input is itself rows of a batch (the input has a
// "c/row_lengths" component, from a splitter over the batch), no component
// is added: the pieces stay rows of that batch, and c/row_lengths becomes
// each row's piece count (RaggedTensor.merge_dims of words and pieces).
// Thread safety: immutable; Bind and the bound functions may be called
// concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/dataset/functions.h"

namespace sluice {

namespace spec {
class ElementFunction;
}

// What a kernel makes of one input tensor: the pieces of all its strings
// end to end (values first, then the companions, each [total]), and each
// string's piece count ([N], or [1] for a scalar).
struct Pieces {
  std::vector<Tensor> flat;
  Tensor row_lengths;
};

struct PiecesLayout {
  DType values_dtype = DType::kString;
  std::vector<std::string> companions;  // suffixes, e.g. "start_offsets"
};

using ElementwiseKernelFn = std::function<Result<Tensor>(const Tensor& strings)>;
using PiecesKernelFn = std::function<Result<Pieces>(const Tensor& strings)>;
using WriteSpecFn = std::function<void(const std::string& component, spec::ElementFunction*)>;

// `held_bytes`: what the kernel holds (a vocabulary's table), for map to
// charge to the RAM budget (BoundElementFunction::held_bytes).
ElementFunctionPtr MakeElementwiseFunction(std::string component, std::string name, DType out_dtype,
                                           ElementwiseKernelFn kernel, WriteSpecFn write_spec,
                                           int64_t held_bytes = 0);

// REQUIRES: the kernel returns 1 + layout.companions.size() flat tensors.
ElementFunctionPtr MakePiecesFunction(std::string component, std::string name, PiecesLayout layout,
                                      PiecesKernelFn kernel, WriteSpecFn write_spec, int64_t held_bytes = 0);

// InvalidArgument naming `fn_name` when two named components of `output`
// (a function's output spec with added components) share a name.
Status CheckDistinctNames(std::string_view fn_name, const ElementSpec& output);

// "tokens, " for a named component, "" otherwise: the start of the
// arguments in a text function's name.
std::string TextArgumentsPrefix(const std::string& component);

}  // namespace sluice

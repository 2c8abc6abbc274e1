// TransformStrings: the loop of the text kernels that map each string of a
// tensor to a new one (lower, normalize, regex_replace): the input checked
// to be strings and each string well-formed UTF-8, then one transform call
// per string into a reused scratch string, copied into the output.
// Thread safety: a pure function.
#pragma once

#include <string>
#include <string_view>

#include "sluice/core/tensor.h"
#include "sluice/ops/utf8.h"

namespace sluice {

// out[i] = transform(in[i]) for every string, same shape: `transform(bytes,
// ascii, out)` writes string i's result into `out` (cleared) and returns a
// Status; `ascii` tells whether bytes are all ASCII. Errors name `what`.
template <typename Transform>
Result<Tensor> TransformStrings(std::string_view what, const Tensor& strings, Transform transform) {
  SLUICE_RETURN_IF_ERROR(CheckStrings(what, strings));
  Tensor out = Tensor::Allocate(DType::kString, strings.shape());
  const TString* in = strings.data<TString>();
  TString* result = out.mutable_data<TString>();
  std::string scratch;
  for (int64_t i = 0, n = strings.NumElements(); i < n; ++i) {
    const std::string_view bytes(in[i].data(), in[i].size());
    SLUICE_RETURN_IF_ERROR(CheckUtf8(bytes, i).WithContext(what));
    const bool ascii = IsAscii(bytes);
    scratch.clear();
    SLUICE_RETURN_IF_ERROR(transform(bytes, ascii, scratch).WithContext(what));
    result[i] = TString(scratch);
  }
  return out;
}

}  // namespace sluice

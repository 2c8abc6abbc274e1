// Reading every byte a fuzzed function's result holds or views, so that a
// wrong size, offset or view shows as a sanitizer report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice::fuzz {

// Every byte of a numeric tensor, and every byte of every string of a
// string tensor; nothing for an invalid one.
inline void TouchTensor(const Tensor& tensor) {
  if (!tensor.valid()) return;
  volatile uint8_t sink = 0;
  if (tensor.dtype() == DType::kString) {
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      const std::string_view s = tensor.data<TString>()[i];
      for (char c : s) sink = sink ^ static_cast<uint8_t>(c);
    }
    return;
  }
  const auto* bytes = static_cast<const uint8_t*>(tensor.raw_data());
  for (size_t i = 0; i < tensor.NumBytes(); ++i) sink = sink ^ bytes[i];
}

}  // namespace sluice::fuzz

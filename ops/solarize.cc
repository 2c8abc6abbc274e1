#include "sluice/ops/solarize.h"

#include <array>

namespace sluice {

Result<Tensor> Solarize(const Tensor& images, double threshold, float max_value) {
  if (images.dtype() != DType::kUInt8 && images.dtype() != DType::kFloat32) {
    return InvalidArgumentError("solarize: expected a uint8 or float32 image, got ", images.dtype(), images.shape());
  }
  const int64_t count = images.NumElements();
  Tensor out = Tensor::AllocateUninitialized(images.dtype(), images.shape());  // the input's size
  // Compared as float32, as torch compares an image with a Python float.
  const auto t = static_cast<float>(threshold);
  if (images.dtype() == DType::kUInt8) {
    std::array<uint8_t, 256> table;
    for (int v = 0; v < 256; ++v) table[v] = static_cast<uint8_t>(static_cast<float>(v) >= t ? 255 - v : v);
    const uint8_t* in = images.data<uint8_t>();
    uint8_t* dst = out.mutable_data<uint8_t>();
    for (int64_t i = 0; i < count; ++i) dst[i] = table[in[i]];
    return out;
  }
  const float* in = images.data<float>();
  float* dst = out.mutable_data<float>();
  for (int64_t i = 0; i < count; ++i) dst[i] = in[i] >= t ? max_value - in[i] : in[i];
  return out;
}

}  // namespace sluice

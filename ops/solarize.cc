#include "sluice/ops/solarize.h"

#include <cmath>
#include <cstring>

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
    // v >= t for an integer v is v >= ceil(t): a compare and a select the
    // compiler vectorises.
    const float first = std::ceil(t);
    const uint8_t* in = images.data<uint8_t>();
    uint8_t* dst = out.mutable_data<uint8_t>();
    if (!(first <= 255)) {  // no value reaches it (NaN included)
      std::memcpy(dst, in, static_cast<size_t>(count));
      return out;
    }
    const auto lowest = static_cast<uint8_t>(first < 0 ? 0 : first);
    for (int64_t i = 0; i < count; ++i) dst[i] = in[i] >= lowest ? static_cast<uint8_t>(255 - in[i]) : in[i];
    return out;
  }
  const float* in = images.data<float>();
  float* dst = out.mutable_data<float>();
  for (int64_t i = 0; i < count; ++i) dst[i] = in[i] >= t ? max_value - in[i] : in[i];
  return out;
}

}  // namespace sluice

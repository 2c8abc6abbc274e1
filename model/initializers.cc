#include "sluice/model/initializers.h"

#include <cmath>

namespace sluice {

std::string_view InitializerName(Initializer initializer) {
  switch (initializer) {
    case Initializer::kGlorotUniform: return "glorot_uniform";
    case Initializer::kHeUniform: return "he_uniform";
    case Initializer::kUniform: return "uniform";
    case Initializer::kZeros: return "zeros";
  }
  return "?";
}

Result<Initializer> ParseInitializer(std::string_view name) {
  for (Initializer i : {Initializer::kGlorotUniform, Initializer::kHeUniform, Initializer::kUniform,
                        Initializer::kZeros}) {
    if (InitializerName(i) == name) return i;
  }
  return InvalidArgumentError("unknown initializer '", name,
                              "'; expected glorot_uniform, he_uniform, uniform or zeros");
}

Tensor Initialize(Initializer initializer, const Shape& shape, std::mt19937_64& rng) {
  Tensor t = Tensor::Allocate(DType::kFloat32, shape);
  if (initializer == Initializer::kZeros) return t;
  const double fan_in = shape.rank() >= 1 ? static_cast<double>(shape.dim(0)) : 1.0;
  const double fan_out = shape.rank() >= 2 ? static_cast<double>(shape.dim(1)) : fan_in;
  double limit = 0.05;
  if (initializer == Initializer::kGlorotUniform) limit = std::sqrt(6.0 / (fan_in + fan_out));
  if (initializer == Initializer::kHeUniform) limit = std::sqrt(6.0 / fan_in);
  std::uniform_real_distribution<double> uniform(-limit, limit);
  float* values = t.mutable_data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) values[i] = static_cast<float>(uniform(rng));
  return t;
}

}  // namespace sluice

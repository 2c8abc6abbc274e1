#include "sluice/model/dropout_layer.h"

#include "sluice/model/model.pb.h"
#include "sluice/ops/dropout.h"

namespace sluice {

DropoutLayer::DropoutLayer(std::string name, double rate) : Layer(std::move(name)), rate_(rate) {
  SLUICE_CHECK(rate >= 0 && rate < 1) << "Dropout " << this->name() << ": rate must be in [0, 1), got " << rate;
}

Result<LayerInput> DropoutLayer::Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) {
  if (inputs[0].dtype != DType::kFloat32) {
    return InvalidArgumentError("Dropout '", name(), "' expects float32 inputs, got ", inputs[0].dtype);
  }
  seed_ = rng();
  return inputs[0];
}

Result<Tensor> DropoutLayer::Call(std::span<const Tensor> inputs, bool training) {
  if (!training || rate_ == 0) return inputs[0];
  // Golden-ratio stepping keeps successive call seeds far apart.
  const uint64_t call_seed = seed_ + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(++calls_);
  return Dropout(inputs[0], rate_, call_seed);
}

void DropoutLayer::ToConfig(model::LayerConfig* config) const {
  config->set_name(name());
  config->mutable_dropout()->set_rate(rate_);
}

}  // namespace sluice

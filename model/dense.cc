#include "sluice/model/dense.h"

#include "sluice/model/model.pb.h"
#include "sluice/ops/bias_add.h"
#include "sluice/ops/matmul.h"

namespace sluice {

Dense::Dense(std::string name, DenseOptions options) : Layer(std::move(name)), options_(options) {
  SLUICE_CHECK(options_.units > 0) << "Dense " << this->name() << ": units must be > 0";
}

Result<LayerInput> Dense::Build(std::span<const LayerInput> inputs, std::mt19937_64& rng) {
  const LayerInput& input = inputs[0];
  if (input.dtype != DType::kFloat32 || input.shape.rank() != 1) {
    return InvalidArgumentError("Dense '", name(), "' expects float32 inputs of shape [features], got ",
                                input.dtype, input.shape);
  }
  kernel_.emplace(name() + "/kernel",
                  Initialize(options_.kernel_initializer, Shape{input.shape.dim(0), options_.units}, rng));
  if (options_.use_bias) {
    bias_.emplace(name() + "/bias", Initialize(Initializer::kZeros, Shape{options_.units}, rng));
  }
  return LayerInput{DType::kFloat32, Shape{options_.units}};
}

Result<Tensor> Dense::Call(std::span<const Tensor> inputs, bool) {
  SLUICE_ASSIGN_OR_RETURN(Tensor y, MatMul(inputs[0], kernel_->value()));
  if (bias_) {
    SLUICE_ASSIGN_OR_RETURN(y, BiasAdd(y, bias_->value()));
  }
  return ApplyActivation(options_.activation, y);
}

std::vector<Variable*> Dense::variables() {
  std::vector<Variable*> vars;
  if (kernel_) vars.push_back(&*kernel_);
  if (bias_) vars.push_back(&*bias_);
  return vars;
}

void Dense::ToConfig(model::LayerConfig* config) const {
  config->set_name(name());
  model::DenseConfig* dense = config->mutable_dense();
  dense->set_units(options_.units);
  dense->set_activation(std::string(ActivationName(options_.activation)));
  dense->set_use_bias(options_.use_bias);
  dense->set_kernel_initializer(std::string(InitializerName(options_.kernel_initializer)));
}

}  // namespace sluice

#include "sluice/model/activation.h"

#include "sluice/ops/softmax.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {

std::string_view ActivationName(Activation activation) {
  switch (activation) {
    case Activation::kLinear: return "linear";
    case Activation::kRelu: return "relu";
    case Activation::kSigmoid: return "sigmoid";
    case Activation::kTanh: return "tanh";
    case Activation::kSoftmax: return "softmax";
  }
  return "?";
}

Result<Activation> ParseActivation(std::string_view name) {
  for (Activation a : {Activation::kLinear, Activation::kRelu, Activation::kSigmoid, Activation::kTanh,
                       Activation::kSoftmax}) {
    if (ActivationName(a) == name) return a;
  }
  return InvalidArgumentError("unknown activation '", name,
                              "'; expected linear, relu, sigmoid, tanh or softmax");
}

Result<Tensor> ApplyActivation(Activation activation, const Tensor& x) {
  switch (activation) {
    case Activation::kLinear: return x;
    case Activation::kRelu: return Relu(x);
    case Activation::kSigmoid: return Sigmoid(x);
    case Activation::kTanh: return Tanh(x);
    case Activation::kSoftmax: return Softmax(x);
  }
  return x;
}

}  // namespace sluice

#include "mlp.h"

#include <cmath>
#include <random>

#include "sluice/executor/device_copy.h"
#include "sluice/executor/gradient_tape.h"
#include "sluice/ops/bias_add.h"
#include "sluice/ops/cross_entropy.h"
#include "sluice/ops/matmul.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {

Mlp::Mlp(const std::vector<int64_t>& widths, uint64_t seed, Device device) {
  std::mt19937_64 rng(seed);
  variables_.reserve(2 * (widths.size() - 1));
  for (size_t layer = 0; layer + 1 < widths.size(); ++layer) {
    const int64_t in = widths[layer], out = widths[layer + 1];
    const double limit = std::sqrt(6.0 / static_cast<double>(in + out));
    std::uniform_real_distribution<float> uniform(static_cast<float>(-limit), static_cast<float>(limit));
    std::vector<float> kernel(in * out);
    for (float& w : kernel) w = uniform(rng);
    const std::string name = "dense_" + std::to_string(layer);
    variables_.emplace_back(name + "/kernel", ToDevice(Tensor::FromVector(kernel, Shape{in, out}), device).value());
    variables_.emplace_back(name + "/bias", ToDevice(Tensor::Allocate(DType::kFloat32, Shape{out}), device).value());
  }
  for (Variable& variable : variables_) pointers_.push_back(&variable);
}

Result<Tensor> Mlp::Logits(const Tensor& x) const {
  Tensor h = x;
  for (size_t i = 0; i < variables_.size(); i += 2) {
    SLUICE_ASSIGN_OR_RETURN(h, MatMul(h, variables_[i].value()));
    SLUICE_ASSIGN_OR_RETURN(h, BiasAdd(h, variables_[i + 1].value()));
    if (i + 2 < variables_.size()) {
      SLUICE_ASSIGN_OR_RETURN(h, Relu(h));
    }
  }
  return h;
}

Result<Tensor> Mlp::TrainStep(Optimizer& optimizer, const Tensor& x, const Tensor& labels) {
  GradientTape tape;
  for (const Variable& variable : variables_) tape.Watch(variable);
  SLUICE_ASSIGN_OR_RETURN(Tensor logits, Logits(x));
  SLUICE_ASSIGN_OR_RETURN(Tensor losses, SparseSoftmaxCrossEntropyWithLogits(labels, logits));
  SLUICE_ASSIGN_OR_RETURN(Tensor loss, Mean(losses));
  SLUICE_ASSIGN_OR_RETURN(std::vector<Tensor> gradients, tape.Gradient(loss, pointers_));
  SLUICE_RETURN_IF_ERROR(optimizer.Apply(pointers_, gradients));
  return loss;
}

std::pair<Tensor, Tensor> RandomBatch(int64_t rows, int64_t features, int64_t classes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  std::vector<float> x(rows * features);
  for (float& v : x) v = normal(rng);
  // Learnable labels: the class of the largest of the first `classes` features.
  std::vector<int64_t> labels(rows);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < std::min(classes, features); ++c) {
      if (x[r * features + c] > x[r * features + best]) best = c;
    }
    labels[r] = best;
  }
  return {Tensor::FromVector(x, Shape{rows, features}), Tensor::FromVector(labels)};
}

}  // namespace sluice

// Losses, as Keras': each takes a batch of labels and predictions and gives
// the mean loss over the batch (a float scalar, recorded on the tape).
//  - BinaryCrossentropy: labels 0/1 (any numeric dtype) shaped like the
//    predictions or without their trailing 1; predictions are logits with
//    from_logits, else probabilities (clipped to [1e-7, 1 - 1e-7], as Keras).
//  - SparseCategoricalCrossentropy: int32/int64 class ids [N] (or [N, 1]),
//    predictions [N, C] logits or probabilities.
//  - MeanSquaredError: labels shaped like the predictions (or without their
//    trailing 1).
// Errors name the loss and both shapes.
// Thread safety: losses are stateless.
#pragma once

#include <memory>
#include <string_view>

#include "sluice/core/tensor.h"

namespace sluice {

class Loss {
 public:
  virtual ~Loss() = default;
  virtual std::string_view name() const = 0;
  // The mean loss over the batch.
  virtual Result<Tensor> operator()(const Tensor& labels, const Tensor& predictions) const = 0;
};

class BinaryCrossentropy final : public Loss {
 public:
  explicit BinaryCrossentropy(bool from_logits = false) : from_logits_(from_logits) {}
  std::string_view name() const override { return "binary_crossentropy"; }
  Result<Tensor> operator()(const Tensor& labels, const Tensor& predictions) const override;

 private:
  const bool from_logits_;
};

class SparseCategoricalCrossentropy final : public Loss {
 public:
  explicit SparseCategoricalCrossentropy(bool from_logits = false) : from_logits_(from_logits) {}
  std::string_view name() const override { return "sparse_categorical_crossentropy"; }
  Result<Tensor> operator()(const Tensor& labels, const Tensor& predictions) const override;

 private:
  const bool from_logits_;
};

class MeanSquaredErrorLoss final : public Loss {
 public:
  std::string_view name() const override { return "mean_squared_error"; }
  Result<Tensor> operator()(const Tensor& labels, const Tensor& predictions) const override;
};

}  // namespace sluice

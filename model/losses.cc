#include "sluice/model/losses.h"

#include "sluice/ops/binary_ops.h"
#include "sluice/ops/cast.h"
#include "sluice/ops/cross_entropy.h"
#include "sluice/ops/device_backend.h"
#include "sluice/ops/reduce_ops.h"
#include "sluice/ops/reshape.h"
#include "sluice/ops/unary_ops.h"

namespace sluice {
namespace {

// Labels as float values shaped exactly like `predictions`: cast, and given
// a trailing 1 (or dropped one) when that is the only difference.
Result<Tensor> DenseLabels(std::string_view loss, const Tensor& labels, const Tensor& predictions) {
  Tensor shaped = labels;
  if (labels.shape() != predictions.shape()) {
    if (labels.NumElements() != predictions.NumElements() || labels.rank() == 0 || predictions.rank() == 0 ||
        labels.dim(0) != predictions.dim(0)) {
      return InvalidArgumentError(loss, ": labels of shape ", labels.shape(), " do not match predictions of shape ",
                                  predictions.shape());
    }
    SLUICE_ASSIGN_OR_RETURN(shaped, labels.Reshaped(predictions.shape()));
  }
  if (shaped.dtype() == predictions.dtype()) return shaped;
  return Cast(shaped, predictions.dtype());
}

// A scalar of `like`'s dtype on its device (a copy to a GPU aborts only when
// the device is out of memory or broken).
Tensor ScalarLike(const Tensor& like, double value) {
  const Tensor scalar = like.dtype() == DType::kFloat64 ? Tensor::Scalar<double>(value)
                                                        : Tensor::Scalar<float>(static_cast<float>(value));
  return ConstantLike(scalar, like).value();
}

// Keras' epsilon: probabilities are kept in [eps, 1 - eps] before the log.
constexpr double kEpsilon = 1e-7;

// log(p) for p clipped to [eps, 1 - eps], written as log(eps + (1 - 2 eps) p)
// so it stays differentiable everywhere.
Result<Tensor> SafeLog(const Tensor& p) {
  SLUICE_ASSIGN_OR_RETURN(Tensor scaled, Mul(p, ScalarLike(p, 1 - 2 * kEpsilon)));
  SLUICE_ASSIGN_OR_RETURN(Tensor shifted, Add(scaled, ScalarLike(p, kEpsilon)));
  return Log(shifted);
}

}  // namespace

Result<Tensor> BinaryCrossentropy::operator()(const Tensor& labels, const Tensor& predictions) const {
  SLUICE_ASSIGN_OR_RETURN(Tensor z, DenseLabels(name(), labels, predictions));
  if (from_logits_) {
    SLUICE_ASSIGN_OR_RETURN(Tensor losses, SigmoidCrossEntropyWithLogits(z, predictions));
    return Mean(losses);
  }
  // -(z log p + (1 - z) log(1 - p))
  SLUICE_ASSIGN_OR_RETURN(Tensor log_p, SafeLog(predictions));
  SLUICE_ASSIGN_OR_RETURN(Tensor one_minus_p, Sub(ScalarLike(predictions, 1), predictions));
  SLUICE_ASSIGN_OR_RETURN(Tensor log_q, SafeLog(one_minus_p));
  SLUICE_ASSIGN_OR_RETURN(Tensor one_minus_z, Sub(ScalarLike(z, 1), z));
  SLUICE_ASSIGN_OR_RETURN(Tensor a, Mul(z, log_p));
  SLUICE_ASSIGN_OR_RETURN(Tensor b, Mul(one_minus_z, log_q));
  SLUICE_ASSIGN_OR_RETURN(Tensor sum, Add(a, b));
  SLUICE_ASSIGN_OR_RETURN(Tensor mean, Mean(sum));
  return Neg(mean);
}

Result<Tensor> SparseCategoricalCrossentropy::operator()(const Tensor& labels, const Tensor& predictions) const {
  if (predictions.rank() != 2) {
    return InvalidArgumentError(name(), ": predictions must be [batch, classes], got ", predictions.shape());
  }
  Tensor ids = labels;
  if (labels.rank() == 2 && labels.dim(1) == 1) {
    SLUICE_ASSIGN_OR_RETURN(ids, labels.Reshaped(Shape{labels.dim(0)}));
  }
  if (ids.rank() != 1 || ids.dim(0) != predictions.dim(0)) {
    return InvalidArgumentError(name(), ": labels of shape ", labels.shape(), " do not match predictions of shape ",
                                predictions.shape(), "; expected [", predictions.dim(0), "] class ids");
  }
  Tensor logits = predictions;
  if (!from_logits_) {
    SLUICE_ASSIGN_OR_RETURN(logits, SafeLog(predictions));
  }
  SLUICE_ASSIGN_OR_RETURN(Tensor losses, SparseSoftmaxCrossEntropyWithLogits(ids, logits));
  return Mean(losses);
}

Result<Tensor> MeanSquaredErrorLoss::operator()(const Tensor& labels, const Tensor& predictions) const {
  SLUICE_ASSIGN_OR_RETURN(Tensor y, DenseLabels(name(), labels, predictions));
  SLUICE_ASSIGN_OR_RETURN(Tensor losses, MeanSquaredError(y, predictions));
  return Mean(losses);
}

}  // namespace sluice

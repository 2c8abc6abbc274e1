// Streaming metrics, as in Keras: a metric accumulates over Update() calls,
// one batch at a time, and Result() is its value over every update since
// construction or the last Reset() (0 before any). Sample weights are
// optional: an invalid Tensor() means every value weighs 1.
//
// Shapes. Trailing dimensions of size 1 are ignored when shapes are
// compared, so labels [batch] match predictions [batch, 1]. A sample weight's
// shape must be a prefix of the weighted values' shape: [] weighs the whole
// batch, [batch] each example, the values' own shape each value.
// Dtypes. Predictions are float32 or float64; labels and weights any numeric
// dtype (bool, integers, floats). Anything else is InvalidArgument naming the
// metric and both dtypes and shapes; a failed update changes nothing.
// Thread safety: a metric is used by one thread at a time.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/tensor.h"

namespace sluice {

// What every metric has: a name (Keras' default: "mean", "precision", ...),
// a result and a reset.
class Metric {
 public:
  virtual ~Metric() = default;

  std::string_view name() const { return name_; }
  virtual double Result() const = 0;
  virtual void Reset() = 0;

 protected:
  explicit Metric(std::string name) : name_(std::move(name)) {}

 private:
  const std::string name_;
};

// The (weighted) mean of values, e.g. the loss over an epoch.
class Mean final : public Metric {
 public:
  explicit Mean(std::string name = "mean") : Metric(std::move(name)) {}

  // Adds every value of `values` (numeric, any shape).
  Status Update(const Tensor& values, const Tensor& sample_weight = Tensor());
  double Result() const override { return weight_ == 0 ? 0 : total_ / weight_; }
  void Reset() override { total_ = weight_ = 0; }

 private:
  double total_ = 0;
  double weight_ = 0;
};

// A metric comparing predictions with labels.
class PredictionMetric : public Metric {
 public:
  Status Update(const Tensor& labels, const Tensor& predictions,
                const Tensor& sample_weight = Tensor()) {
    return UpdateInternal(labels, predictions, sample_weight);
  }

 protected:
  using Metric::Metric;
  // Validates, then accumulates; on error accumulates nothing.
  virtual Status UpdateInternal(const Tensor& labels, const Tensor& predictions,
                                const Tensor& sample_weight) = 0;
};

// How binary predictions become decisions. A prediction is positive when it
// is greater than `threshold` (strictly, and in the predictions' dtype, as in
// Keras: 0.3f is not above 0.3). With from_logits the
// predictions are logits, positive when sigmoid(logit) > threshold, i.e.
// logit > log(threshold / (1 - threshold)): logit > 0 for 0.5.
// REQUIRES: 0 <= threshold <= 1 (0 < threshold < 1 with from_logits).
struct BinaryOptions {
  double threshold = 0.5;
  bool from_logits = false;
};

// Binary metrics take labels and predictions of the same shape (one value
// per decision, e.g. [batch] or [batch, 1]).

// The fraction of predictions whose decision (1 or 0) equals the label, as
// Keras compares them: a label that is neither 0 nor 1 never matches.
class BinaryAccuracy final : public PredictionMetric {
 public:
  explicit BinaryAccuracy(BinaryOptions options = {}, std::string name = "binary_accuracy");
  double Result() const override { return total_ == 0 ? 0 : correct_ / total_; }
  void Reset() override { correct_ = total_ = 0; }

 private:
  Status UpdateInternal(const Tensor& labels, const Tensor& predictions,
                        const Tensor& sample_weight) override;

  const double cut_;  // the threshold in the predictions' units
  double correct_ = 0;
  double total_ = 0;
};

// Counts of binary decisions against labels (nonzero labels are positive),
// shared by Precision and Recall.
class ConfusionMetric : public PredictionMetric {
 public:
  void Reset() override { true_positives_ = false_positives_ = false_negatives_ = 0; }

 protected:
  ConfusionMetric(BinaryOptions options, std::string name);

  double true_positives_ = 0;
  double false_positives_ = 0;
  double false_negatives_ = 0;

 private:
  Status UpdateInternal(const Tensor& labels, const Tensor& predictions,
                        const Tensor& sample_weight) final;

  const double cut_;
};

// true positives / predicted positives (0 when nothing was predicted positive).
class Precision final : public ConfusionMetric {
 public:
  explicit Precision(BinaryOptions options = {}, std::string name = "precision")
      : ConfusionMetric(options, std::move(name)) {}
  double Result() const override;
};

// true positives / actual positives (0 when no label was positive).
class Recall final : public ConfusionMetric {
 public:
  explicit Recall(BinaryOptions options = {}, std::string name = "recall")
      : ConfusionMetric(options, std::move(name)) {}
  double Result() const override;
};

// REQUIRES: num_thresholds >= 2.
struct AucOptions {
  int num_thresholds = 200;
  bool from_logits = false;  // apply a sigmoid to the predictions first
};

// Area under the ROC curve, computed as Keras does by default: true and
// false positive rates at num_thresholds thresholds (-1e-7, 1/(n-1), ...,
// (n-2)/(n-1), 1 + 1e-7, as float32), joined by the trapezoidal rule. This
// is streaming in O(num_thresholds) memory and matches Keras' numbers; it is
// exact (equal to the ranking AUC) when no two predictions of different
// labels fall between the same two thresholds. Nonzero labels are positive.
class Auc final : public PredictionMetric {
 public:
  explicit Auc(AucOptions options = {}, std::string name = "auc");
  double Result() const override;
  void Reset() override;

 private:
  Status UpdateInternal(const Tensor& labels, const Tensor& predictions,
                        const Tensor& sample_weight) override;

  const bool from_logits_;
  const std::vector<double> thresholds_;  // ascending
  // Weight of positive / negative examples by how many thresholds their
  // prediction exceeds (0 to num_thresholds).
  std::vector<double> positives_;
  std::vector<double> negatives_;
};

// The fraction of examples whose highest-scoring class (the first, on ties)
// is the label. Predictions are [batch, classes]; labels are class indices,
// [batch] or [batch, 1]; a sample weight is per example.
class SparseCategoricalAccuracy final : public PredictionMetric {
 public:
  explicit SparseCategoricalAccuracy(std::string name = "sparse_categorical_accuracy")
      : PredictionMetric(std::move(name)) {}
  double Result() const override { return total_ == 0 ? 0 : correct_ / total_; }
  void Reset() override { correct_ = total_ = 0; }

 private:
  Status UpdateInternal(const Tensor& labels, const Tensor& predictions,
                        const Tensor& sample_weight) override;

  double correct_ = 0;
  double total_ = 0;
};

}  // namespace sluice

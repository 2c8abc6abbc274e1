#include "sluice/model/metrics.h"

#include <algorithm>
#include <cmath>

namespace sluice {
namespace {

// "int64[4, 1]"
std::string Describe(const Tensor& tensor) {
  return StrCat(DTypeName(tensor.dtype()), tensor.shape());
}

Shape WithoutTrailingOnes(const Shape& shape) {
  int rank = shape.rank();
  while (rank > 0 && shape.dim(rank - 1) == 1) --rank;
  return Shape(shape.dims().first(rank));
}

// A numeric tensor's values as doubles.
std::vector<double> ToDoubles(const Tensor& tensor) {
  return VisitNumericDType(tensor.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* values = tensor.data<T>();
    std::vector<double> out(tensor.NumElements());
    for (size_t i = 0; i < out.size(); ++i) out[i] = ConvertValue<double>(values[i]);
    return out;
  });
}

// Checks the dtypes of an update: float predictions, numeric labels.
Status CheckDTypes(std::string_view metric, const Tensor& labels, const Tensor& predictions) {
  if (!labels.valid() || !predictions.valid()) {
    return InvalidArgumentError(metric, ": labels and predictions must be valid tensors");
  }
  if (predictions.dtype() != DType::kFloat32 && predictions.dtype() != DType::kFloat64) {
    return InvalidArgumentError(metric, ": predictions must be float32 or float64 (labels ",
                                Describe(labels), ", predictions ", Describe(predictions), ")");
  }
  if (labels.dtype() == DType::kString) {
    return InvalidArgumentError(metric, ": labels must be numeric (labels ", Describe(labels),
                                ", predictions ", Describe(predictions), ")");
  }
  return OkStatus();
}

// One weight per value of a `values_shape` tensor: each of sample_weight's
// values repeated over the values under it (see the header); all 1 for an
// invalid sample_weight.
Result<std::vector<double>> ExpandWeights(std::string_view metric, const Tensor& sample_weight,
                                          const Shape& values_shape) {
  const auto count = static_cast<size_t>(values_shape.NumElements());
  if (!sample_weight.valid()) return std::vector<double>(count, 1.0);
  const Shape weight_shape = WithoutTrailingOnes(sample_weight.shape());
  const bool is_prefix = weight_shape.rank() <= values_shape.rank() &&
                         std::equal(weight_shape.dims().begin(), weight_shape.dims().end(),
                                    values_shape.dims().begin());
  if (sample_weight.dtype() == DType::kString || !is_prefix) {
    return InvalidArgumentError(metric, ": sample_weight ", Describe(sample_weight),
                                " must be numeric with a shape that is a prefix of ", values_shape);
  }
  const std::vector<double> weights = ToDoubles(sample_weight);
  std::vector<double> out;
  out.reserve(count);
  const size_t block = weights.empty() ? 0 : count / weights.size();
  for (double weight : weights) out.insert(out.end(), block, weight);
  return out;
}

// An update of a binary metric: per value its label, prediction and weight.
struct BinaryBatch {
  std::vector<double> labels;
  std::vector<double> predictions;
  std::vector<double> weights;
};

Result<BinaryBatch> ReadBinaryBatch(std::string_view metric, const Tensor& labels,
                                    const Tensor& predictions, const Tensor& sample_weight) {
  SLUICE_RETURN_IF_ERROR(CheckDTypes(metric, labels, predictions));
  if (!(WithoutTrailingOnes(labels.shape()) == WithoutTrailingOnes(predictions.shape()))) {
    return InvalidArgumentError(metric, ": labels shape ", labels.shape(),
                                " does not match predictions shape ", predictions.shape());
  }
  BinaryBatch batch;
  SLUICE_ASSIGN_OR_RETURN(batch.weights, ExpandWeights(metric, sample_weight, predictions.shape()));
  batch.labels = ToDoubles(labels);
  batch.predictions = ToDoubles(predictions);
  return batch;
}

// The decision threshold in the predictions' units (logits or probabilities).
double Cut(const BinaryOptions& options) {
  if (options.from_logits) {
    SLUICE_CHECK(options.threshold > 0 && options.threshold < 1)
        << "threshold " << options.threshold << " on logits";
    return std::log(options.threshold / (1 - options.threshold));
  }
  SLUICE_CHECK(options.threshold >= 0 && options.threshold <= 1)
      << "threshold " << options.threshold;
  return options.threshold;
}

// The threshold as the predictions' dtype holds it, so that 0.3f is not
// above a threshold of 0.3 (Keras compares in the predictions' dtype).
double CutFor(double cut, const Tensor& predictions) {
  return predictions.dtype() == DType::kFloat32 ? static_cast<float>(cut) : cut;
}

// Validates a binary update, then calls fn(label, predicted_positive, weight)
// for each of its values.
template <typename Fn>
Status ForEachDecision(std::string_view metric, double cut, const Tensor& labels,
                       const Tensor& predictions, const Tensor& sample_weight, Fn fn) {
  SLUICE_ASSIGN_OR_RETURN(BinaryBatch batch,
                          ReadBinaryBatch(metric, labels, predictions, sample_weight));
  const double rounded_cut = CutFor(cut, predictions);
  for (size_t i = 0; i < batch.labels.size(); ++i) {
    fn(batch.labels[i], batch.predictions[i] > rounded_cut, batch.weights[i]);
  }
  return OkStatus();
}

double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double DivideOrZero(double a, double b) { return b == 0 ? 0 : a / b; }

// Keras' AUC thresholds: evenly spaced, just outside [0, 1] at the ends,
// rounded to float32 (where Keras compares).
std::vector<double> AucThresholds(int num_thresholds) {
  SLUICE_CHECK(num_thresholds >= 2) << "num_thresholds " << num_thresholds;
  constexpr double kEpsilon = 1e-7;
  std::vector<double> thresholds(num_thresholds);
  thresholds.front() = -kEpsilon;
  for (int i = 1; i < num_thresholds - 1; ++i) thresholds[i] = i * 1.0 / (num_thresholds - 1);
  thresholds.back() = 1 + kEpsilon;
  for (double& t : thresholds) t = static_cast<float>(t);
  return thresholds;
}

}  // namespace

Status Mean::Update(const Tensor& values, const Tensor& sample_weight) {
  if (!values.valid() || values.dtype() == DType::kString) {
    return InvalidArgumentError(name(), ": values must be a numeric tensor",
                                values.valid() ? StrCat(", got ", Describe(values)) : "");
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> weights,
                          ExpandWeights(name(), sample_weight, values.shape()));
  const std::vector<double> v = ToDoubles(values);
  for (size_t i = 0; i < v.size(); ++i) {
    total_ += weights[i] * v[i];
    weight_ += weights[i];
  }
  return OkStatus();
}

BinaryAccuracy::BinaryAccuracy(BinaryOptions options, std::string name)
    : PredictionMetric(std::move(name)), cut_(Cut(options)) {}

Status BinaryAccuracy::UpdateInternal(const Tensor& labels, const Tensor& predictions,
                                      const Tensor& sample_weight) {
  return ForEachDecision(name(), cut_, labels, predictions, sample_weight,
                         [&](double label, bool predicted, double weight) {
                           if (label == (predicted ? 1 : 0)) correct_ += weight;
                           total_ += weight;
                         });
}

ConfusionMetric::ConfusionMetric(BinaryOptions options, std::string name)
    : PredictionMetric(std::move(name)), cut_(Cut(options)) {}

Status ConfusionMetric::UpdateInternal(const Tensor& labels, const Tensor& predictions,
                                       const Tensor& sample_weight) {
  return ForEachDecision(name(), cut_, labels, predictions, sample_weight,
                         [&](double label, bool predicted, double weight) {
                           const bool actual = label != 0;
                           if (actual && predicted) true_positives_ += weight;
                           if (!actual && predicted) false_positives_ += weight;
                           if (actual && !predicted) false_negatives_ += weight;
                         });
}

double Precision::Result() const {
  return DivideOrZero(true_positives_, true_positives_ + false_positives_);
}

double Recall::Result() const {
  return DivideOrZero(true_positives_, true_positives_ + false_negatives_);
}

Auc::Auc(AucOptions options, std::string name)
    : PredictionMetric(std::move(name)),
      from_logits_(options.from_logits),
      thresholds_(AucThresholds(options.num_thresholds)),
      positives_(thresholds_.size() + 1),
      negatives_(thresholds_.size() + 1) {}

void Auc::Reset() {
  std::fill(positives_.begin(), positives_.end(), 0.0);
  std::fill(negatives_.begin(), negatives_.end(), 0.0);
}

Status Auc::UpdateInternal(const Tensor& labels, const Tensor& predictions,
                           const Tensor& sample_weight) {
  SLUICE_ASSIGN_OR_RETURN(BinaryBatch batch,
                          ReadBinaryBatch(name(), labels, predictions, sample_weight));
  for (size_t i = 0; i < batch.labels.size(); ++i) {
    const double p = from_logits_ ? Sigmoid(batch.predictions[i]) : batch.predictions[i];
    // The number of thresholds below p: p counts as positive at each of them.
    const size_t exceeded =
        std::lower_bound(thresholds_.begin(), thresholds_.end(), p) - thresholds_.begin();
    (batch.labels[i] != 0 ? positives_ : negatives_)[exceeded] += batch.weights[i];
  }
  return OkStatus();
}

double Auc::Result() const {
  // At threshold i the true positives are the positives above it: those that
  // exceed more than i thresholds. Walk the thresholds from the highest down.
  double total_positive = 0;
  double total_negative = 0;
  for (size_t k = 0; k < positives_.size(); ++k) {
    total_positive += positives_[k];
    total_negative += negatives_[k];
  }
  double area = 0;
  double true_positives = 0;
  double false_positives = 0;
  double previous_tpr = 0;  // at a threshold above every prediction
  double previous_fpr = 0;
  for (size_t i = thresholds_.size(); i-- > 0;) {
    true_positives += positives_[i + 1];
    false_positives += negatives_[i + 1];
    const double tpr = DivideOrZero(true_positives, total_positive);
    const double fpr = DivideOrZero(false_positives, total_negative);
    if (i + 1 < thresholds_.size()) area += (fpr - previous_fpr) * (tpr + previous_tpr) / 2;
    previous_tpr = tpr;
    previous_fpr = fpr;
  }
  return area;
}

Status SparseCategoricalAccuracy::UpdateInternal(const Tensor& labels, const Tensor& predictions,
                                                 const Tensor& sample_weight) {
  SLUICE_RETURN_IF_ERROR(CheckDTypes(name(), labels, predictions));
  if (predictions.rank() != 2) {
    return InvalidArgumentError(name(), ": predictions must be [batch, classes], got ",
                                predictions.shape(), " (labels ", labels.shape(), ")");
  }
  const int64_t batch = predictions.dim(0);
  const int64_t classes = predictions.dim(1);
  if (!(WithoutTrailingOnes(labels.shape()) == WithoutTrailingOnes(Shape{batch}))) {
    return InvalidArgumentError(name(), ": labels shape ", labels.shape(),
                                " does not match predictions shape ", predictions.shape(),
                                " (expected [", batch, "] or [", batch, ", 1])");
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<double> weights,
                          ExpandWeights(name(), sample_weight, Shape{batch}));
  const std::vector<double> label_values = ToDoubles(labels);
  const std::vector<double> scores = ToDoubles(predictions);
  for (int64_t row = 0; row < batch; ++row) {
    const auto first = scores.begin() + row * classes;
    const int64_t argmax = std::max_element(first, first + classes) - first;
    if (classes > 0 && label_values[row] == static_cast<double>(argmax)) correct_ += weights[row];
    total_ += weights[row];
  }
  return OkStatus();
}

}  // namespace sluice

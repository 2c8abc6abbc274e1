#include "sluice/model/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

namespace sluice {
namespace {

using ::testing::HasSubstr;

Tensor Floats(std::vector<float> values, Shape shape) { return Tensor::FromVector(values, shape); }
Tensor Floats(std::vector<float> values) { return Tensor::FromVector(values); }
Tensor Ints(std::vector<int64_t> values, Shape shape) { return Tensor::FromVector(values, shape); }
Tensor Ints(std::vector<int64_t> values) { return Tensor::FromVector(values); }

// Keras' documented examples (keras.io/api/metrics), one per metric.

TEST(MeanTest, KerasExample) {
  Mean m;
  ASSERT_TRUE(m.Update(Floats({1, 3, 5, 7})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 4.0);
  m.Reset();
  ASSERT_TRUE(m.Update(Floats({1, 3, 5, 7}), Floats({1, 1, 0, 0})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 2.0);
  EXPECT_EQ(m.name(), "mean");
}

TEST(BinaryAccuracyTest, KerasExample) {
  BinaryAccuracy m;
  ASSERT_TRUE(m.Update(Ints({1, 1, 0, 0}, {4, 1}), Floats({0.98f, 1, 0, 0.6f}, {4, 1})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.75);
  m.Reset();
  ASSERT_TRUE(m.Update(Ints({1, 1, 0, 0}, {4, 1}), Floats({0.98f, 1, 0, 0.6f}, {4, 1}),
                       Floats({1, 0, 0, 1}))
                  .ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.5);
}

TEST(SparseCategoricalAccuracyTest, KerasExample) {
  SparseCategoricalAccuracy m;
  const Tensor labels = Ints({2, 1}, {2, 1});
  const Tensor predictions = Floats({0.1f, 0.6f, 0.3f, 0.05f, 0.95f, 0}, {2, 3});
  ASSERT_TRUE(m.Update(labels, predictions).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.5);
  m.Reset();
  ASSERT_TRUE(m.Update(labels, predictions, Floats({0.7f, 0.3f})).ok());
  EXPECT_NEAR(m.Result(), 0.3, 1e-7);
}

// Keras documents the same example for both.
TEST(PrecisionRecallTest, KerasExample) {
  Precision precision;
  Recall recall;
  for (ConfusionMetric* m : std::initializer_list<ConfusionMetric*>{&precision, &recall}) {
    SCOPED_TRACE(m->name());
    ASSERT_TRUE(m->Update(Ints({0, 1, 1, 1}), Floats({1, 0, 1, 1})).ok());
    EXPECT_DOUBLE_EQ(m->Result(), 2.0 / 3);
    m->Reset();
    ASSERT_TRUE(m->Update(Ints({0, 1, 1, 1}), Floats({1, 0, 1, 1}), Floats({0, 0, 1, 0})).ok());
    EXPECT_DOUBLE_EQ(m->Result(), 1.0);
  }
}

// thresholds [-1e-7, 0.5, 1 + 1e-7]: tpr [1, 0.5, 0], fpr [1, 0, 0], so
// ((1 + 0.5) / 2) * (1 - 0) + ((0.5 + 0) / 2) * (0 - 0) = 0.75.
TEST(AucTest, KerasExample) {
  Auc m({.num_thresholds = 3});
  ASSERT_TRUE(m.Update(Ints({0, 0, 1, 1}), Floats({0, 0.5f, 0.3f, 0.9f})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.75);
  m.Reset();
  ASSERT_TRUE(
      m.Update(Ints({0, 0, 1, 1}), Floats({0, 0.5f, 0.3f, 0.9f}), Floats({1, 0, 0, 1})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 1.0);
}

// ---- hand-computed cases ----

TEST(MeanTest, StreamsAcrossBatchesAndWeighsRows) {
  Mean m;
  EXPECT_EQ(m.Result(), 0);  // nothing yet
  ASSERT_TRUE(m.Update(Tensor::Scalar(2.0)).ok());
  // Rows of [2, 2] weighted 1 and 3: (1 + 2) * 1 + (3 + 4) * 3 over 2 * 1 + 2 * 3.
  ASSERT_TRUE(m.Update(Ints({1, 2, 3, 4}, {2, 2}), Floats({1, 3})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), (2.0 + 3 + 21) / (1 + 2 + 6));
}

TEST(BinaryAccuracyTest, ThresholdsLogitsAtZero) {
  BinaryAccuracy m({.from_logits = true});
  // Logit 0 is probability 0.5: not above the threshold.
  ASSERT_TRUE(m.Update(Ints({1, 0, 0, 1}), Floats({2.0f, -1.0f, 0.0f, 0.5f})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 1.0);
  ASSERT_TRUE(m.Update(Ints({0}), Floats({1e-6f})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.8);
}

TEST(BinaryAccuracyTest, AcceptsLabelAndPredictionDTypes) {
  BinaryAccuracy m({.threshold = 0.7});
  const std::vector<double> predictions = {0.9, 0.7, 0.2, 0.71};
  ASSERT_TRUE(m.Update(Tensor::FromVector<bool>({true, true, false, false}),
                       Tensor::FromVector(predictions))
                  .ok());
  ASSERT_TRUE(
      m.Update(Tensor::FromVector<int32_t>({1, 1, 0, 0}), Tensor::FromVector(predictions)).ok());
  ASSERT_TRUE(m.Update(Floats({1, 1, 0, 0}), Tensor::FromVector(predictions)).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0.5);  // 0.7 is not above 0.7; 0.71 is
}

TEST(BinaryAccuracyTest, ALabelNeitherZeroNorOneNeverMatches) {
  BinaryAccuracy m;
  ASSERT_TRUE(m.Update(Floats({0.8f, 2}), Floats({0.9f, 0.9f})).ok());
  EXPECT_DOUBLE_EQ(m.Result(), 0);
}

TEST(PrecisionRecallTest, CountsAtAThreshold) {
  // labels 1 1 1 0 0, predictions above 0.3: 1 0 1 1 0 -> tp 2, fp 1, fn 1.
  const Tensor labels = Tensor::FromVector<bool>({true, true, true, false, false});
  const Tensor predictions = Floats({0.4f, 0.1f, 0.9f, 0.35f, 0.3f});
  Precision precision({.threshold = 0.3});
  Recall recall({.threshold = 0.3});
  ASSERT_TRUE(precision.Update(labels, predictions).ok());
  ASSERT_TRUE(recall.Update(labels, predictions).ok());
  EXPECT_DOUBLE_EQ(precision.Result(), 2.0 / 3);
  EXPECT_DOUBLE_EQ(recall.Result(), 2.0 / 3);
  // Nothing predicted positive, nothing positive: 0, not NaN.
  Precision empty_precision;
  Recall empty_recall;
  ASSERT_TRUE(empty_precision.Update(Floats({1}), Floats({0.1f})).ok());
  ASSERT_TRUE(empty_recall.Update(Floats({0}), Floats({0.9f})).ok());
  EXPECT_EQ(empty_precision.Result(), 0);
  EXPECT_EQ(empty_recall.Result(), 0);
}

// The AUC as the probability that a random positive outscores a random
// negative (ties count half): the trivially correct model.
double RankingAuc(const std::vector<float>& predictions, const std::vector<int64_t>& labels) {
  double wins = 0;
  double pairs = 0;
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = 0; j < labels.size(); ++j) {
      if (labels[i] != 1 || labels[j] != 0) continue;
      wins += predictions[i] > predictions[j] ? 1 : predictions[i] == predictions[j] ? 0.5 : 0;
      ++pairs;
    }
  }
  return wins / pairs;
}

TEST(AucTest, EqualsTheRankingAucWhenThresholdsSeparatePredictions) {
  // 150 predictions, one between each pair of neighbouring thresholds of 200.
  std::vector<float> predictions;
  for (int k = 0; k < 150; ++k) predictions.push_back((k + 0.5f) / 199);
  std::mt19937 random(7);
  std::shuffle(predictions.begin(), predictions.end(), random);
  std::vector<int64_t> labels;
  for (size_t i = 0; i < predictions.size(); ++i) labels.push_back(random() % 3 == 0);

  Auc m;
  // In three batches, to check the streaming.
  for (int64_t begin : {0, 50, 100}) {
    const std::vector<float> p(predictions.begin() + begin, predictions.begin() + begin + 50);
    const std::vector<int64_t> l(labels.begin() + begin, labels.begin() + begin + 50);
    ASSERT_TRUE(m.Update(Ints(l), Floats(p)).ok());
  }
  EXPECT_NEAR(m.Result(), RankingAuc(predictions, labels), 1e-12);
}

TEST(AucTest, FromLogitsMatchesProbabilities) {
  const std::vector<float> probabilities = {0.1f, 0.4f, 0.35f, 0.8f, 0.55f};
  std::vector<float> logits;
  for (float p : probabilities) logits.push_back(std::log(p / (1 - p)));
  Auc on_probabilities;
  Auc on_logits({.from_logits = true});
  ASSERT_TRUE(on_probabilities.Update(Ints({0, 0, 1, 1, 0}), Floats(probabilities)).ok());
  ASSERT_TRUE(on_logits.Update(Ints({0, 0, 1, 1, 0}), Floats(logits)).ok());
  EXPECT_DOUBLE_EQ(on_probabilities.Result(), 2.0 / 3);  // pos 0.35 beats 0.1; 0.8 beats all
  EXPECT_DOUBLE_EQ(on_logits.Result(), on_probabilities.Result());
}

TEST(AucTest, OneClassOnlyIsZero) {
  Auc m;
  ASSERT_TRUE(m.Update(Ints({1, 1}), Floats({0.2f, 0.9f})).ok());
  EXPECT_EQ(m.Result(), 0);
}

TEST(SparseCategoricalAccuracyTest, RankOneLabelsAndFirstMaximumOnTies) {
  SparseCategoricalAccuracy m;
  // Row 0 ties classes 0 and 2: argmax is 0.
  ASSERT_TRUE(m.Update(Tensor::FromVector<int32_t>({0, 2, 1}),
                       Floats({0.4f, 0.2f, 0.4f, 0.1f, 0.2f, 0.7f, 0.5f, 0.3f, 0.2f}, {3, 3}))
                  .ok());
  EXPECT_DOUBLE_EQ(m.Result(), 2.0 / 3);
}

// ---- every metric: errors, reset ----

struct MetricCase {
  const char* name;
  std::function<std::unique_ptr<PredictionMetric>()> make;
  Tensor labels;
  Tensor predictions;
  double expected;
};

std::vector<MetricCase> Cases() {
  const Tensor binary_labels = Ints({1, 0, 1, 0});
  const Tensor binary_predictions = Floats({0.8f, 0.6f, 0.4f, 0.2f});
  return {
      {"binary_accuracy", [] { return std::make_unique<BinaryAccuracy>(); }, binary_labels,
       binary_predictions, /*expected=*/0.5},
      {"precision", [] { return std::make_unique<Precision>(); }, binary_labels, binary_predictions,
       /*expected=*/0.5},
      {"recall", [] { return std::make_unique<Recall>(); }, binary_labels, binary_predictions,
       /*expected=*/0.5},
      {"auc", [] { return std::make_unique<Auc>(); }, binary_labels, binary_predictions,
       /*expected=*/0.75},
      {"sparse_categorical_accuracy", [] { return std::make_unique<SparseCategoricalAccuracy>(); },
       Ints({1, 0}), Floats({0.2f, 0.8f, 0.3f, 0.7f}, {2, 2}), /*expected=*/0.5},
  };
}

TEST(MetricContractTest, ResetForgetsEverything) {
  for (const MetricCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<PredictionMetric> m = c.make();
    EXPECT_EQ(m->name(), c.name);
    EXPECT_EQ(m->Result(), 0);
    ASSERT_TRUE(m->Update(c.labels, c.predictions).ok());
    EXPECT_DOUBLE_EQ(m->Result(), c.expected);
    m->Reset();
    EXPECT_EQ(m->Result(), 0);
    ASSERT_TRUE(m->Update(c.labels, c.predictions).ok());
    ASSERT_TRUE(m->Update(c.labels, c.predictions).ok());
    EXPECT_DOUBLE_EQ(m->Result(), c.expected);
  }
}

TEST(MetricContractTest, ErrorsNameTheMetricAndChangeNothing) {
  for (const MetricCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::unique_ptr<PredictionMetric> m = c.make();
    ASSERT_TRUE(m->Update(c.labels, c.predictions).ok());

    const Tensor short_labels = Ints({1});
    Status status = m->Update(short_labels, c.predictions);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(),
                HasSubstr(StrCat(c.name, ": labels shape [1] does not match predictions shape ",
                                 c.predictions.shape())));

    status = m->Update(c.labels, Ints({1, 0, 1, 0}, c.predictions.shape()));
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(),
                HasSubstr(StrCat(c.name, ": predictions must be float32 or float64 (labels ",
                                 DTypeName(c.labels.dtype()), c.labels.shape(),
                                 ", predictions int64", c.predictions.shape(), ")")));

    status = m->Update(Tensor::FromVector<std::string>(
                           std::vector<std::string>(c.labels.NumElements()), c.labels.shape()),
                       c.predictions);
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("labels must be numeric"));

    status = m->Update(c.labels, c.predictions, Floats({1, 1, 1}));
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr(StrCat(c.name, ": sample_weight float32[3]")));

    EXPECT_DOUBLE_EQ(m->Result(), c.expected);
  }
}

TEST(MeanTest, Errors) {
  Mean m("loss");
  ASSERT_TRUE(m.Update(Floats({1, 2}, {2, 1})).ok());
  Status status = m.Update(Tensor::Scalar("x"));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("loss: values must be a numeric tensor, got string[]"));
  status = m.Update(Floats({1, 2}, {2, 1}), Floats({1, 2, 3}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("loss: sample_weight float32[3] must be numeric with a shape that is a "
                        "prefix of [2, 1]"));
  EXPECT_DOUBLE_EQ(m.Result(), 1.5);
}

TEST(SparseCategoricalAccuracyTest, ShapeErrors) {
  SparseCategoricalAccuracy m;
  Status status = m.Update(Ints({1, 0}), Floats({0.2f, 0.8f}));
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(
      status.message(),
      HasSubstr("sparse_categorical_accuracy: predictions must be [batch, classes], got [2] "
                "(labels [2])"));
  status = m.Update(Ints({1, 0}, {1, 2}), Floats({0.2f, 0.8f, 0.3f, 0.7f}, {2, 2}));
  EXPECT_THAT(status.message(), HasSubstr("labels shape [1, 2] does not match predictions shape "
                                          "[2, 2] (expected [2] or [2, 1])"));
}

}  // namespace
}  // namespace sluice

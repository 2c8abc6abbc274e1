#include "sluice/model/trainer.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "sluice/dataset/pipeline.h"
#include "sluice/executor/local_collectives.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/sgd.h"

namespace sluice {
namespace {

// n points in R^2 labelled x0 + x1 > 0.
Pipeline LinearlySeparable(int64_t n, uint64_t seed) {
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape{n, 2});
  Tensor y = Tensor::Allocate(DType::kInt64, Shape{n});
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < n; ++i) {
    float* row = x.mutable_data<float>() + 2 * i;
    row[0] = normal(rng);
    row[1] = normal(rng);
    y.mutable_data<int64_t>()[i] = row[0] + row[1] > 0;
  }
  return Pipeline::FromSlices({{"features", x}, {"label", y}});
}

std::unique_ptr<Model> Classifier(uint64_t seed) {
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 8, .activation = Activation::kRelu}));
  layers.push_back(std::make_unique<Dense>("logits", DenseOptions{.units = 1}));
  return *Model::Sequential({"features", DType::kFloat32, Shape{2}}, std::move(layers), seed);
}

TrainerOptions WithAccuracy() {
  return {.metrics = {[] { return std::make_unique<BinaryAccuracy>(BinaryOptions{.from_logits = true}, "accuracy"); }}};
}

OptimizerOptions Rate(double lr) { return {.learning_rate = std::make_shared<ConstantLearningRate>(lr)}; }

TEST(TrainerTest, FitLearnsASeparableProblemAndReportsEachEpoch) {
  auto model = Classifier(1);
  BinaryCrossentropy loss(true);
  Adam adam(Rate(1e-2));
  Trainer trainer(*model, loss, adam, WithAccuracy());
  const DatasetPtr train = *LinearlySeparable(800, 1).Shuffle({.buffer_size = 800, .seed = 2}).Batch({.batch_size = 32}).Build();
  const DatasetPtr validation = *LinearlySeparable(200, 2).Batch({.batch_size = 50}).Build();
  std::ostringstream progress;
  auto history = trainer.Fit(train, {.epochs = 8, .validation = validation, .progress = &progress});
  ASSERT_TRUE(history.ok()) << history.status();
  ASSERT_EQ(history->size(), 8u);
  EXPECT_EQ((*history)[0].steps, 25);
  EXPECT_LT(history->back().values.at("loss"), (*history)[0].values.at("loss"));
  EXPECT_GE(history->back().values.at("val_accuracy"), 0.95);
  EXPECT_EQ(adam.iterations(), 8 * 25);
  EXPECT_NE(progress.str().find("epoch 8: 25 steps - accuracy "), std::string::npos) << progress.str();
  EXPECT_NE(progress.str().find("val_loss"), std::string::npos);
  EXPECT_NE(progress.str().find("samples/s - input wait"), std::string::npos);
  auto evaluated = trainer.Evaluate(validation);
  ASSERT_TRUE(evaluated.ok());
  EXPECT_DOUBLE_EQ(evaluated->values.at("accuracy"), history->back().values.at("val_accuracy"));
}

TEST(TrainerTest, InfiniteDatasetNeedsStepsPerEpoch) {
  auto model = Classifier(1);
  BinaryCrossentropy loss(true);
  Sgd sgd(Rate(0.1));
  Trainer trainer(*model, loss, sgd);
  const DatasetPtr forever = *LinearlySeparable(64, 1).Batch({.batch_size = 16}).Repeat(-1).Build();
  auto refused = trainer.Fit(forever, {.epochs = 1});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("steps_per_epoch is required"), std::string::npos);
  // With it, the iterator carries over between epochs.
  auto history = trainer.Fit(forever, {.epochs = 3, .steps_per_epoch = 5});
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(sgd.iterations(), 15);
  // A finite dataset shorter than steps_per_epoch is an error saying so.
  const DatasetPtr short_data = *LinearlySeparable(32, 1).Batch({.batch_size = 16}).Build();
  auto too_short = trainer.Fit(short_data, {.epochs = 1, .steps_per_epoch = 3});
  ASSERT_FALSE(too_short.ok());
  EXPECT_NE(too_short.status().message().find("ended after 2 steps"), std::string::npos) << too_short.status();
}

TEST(TrainerTest, MissingComponentsAndNaNLossAreClearErrors) {
  auto model = Classifier(1);
  BinaryCrossentropy loss(true);
  Sgd sgd(Rate(0.1));
  Trainer trainer(*model, loss, sgd, {.label_component = "target"});
  const DatasetPtr data = *LinearlySeparable(32, 1).Batch({.batch_size = 16}).Build();
  auto missing = trainer.Fit(data, {.epochs = 1});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no label component 'target'"), std::string::npos) << missing.status();

  Tensor x = Tensor::FromVector<float>({std::nanf(""), 0}, Shape{1, 2});
  const DatasetPtr poisoned = *Pipeline::FromSlices({{"features", x}, {"label", Tensor::FromVector<int64_t>({1})}})
                                   .Batch({.batch_size = 1})
                                   .Build();
  Trainer plain(*model, loss, sgd);
  auto nan = plain.Fit(poisoned, {.epochs = 1});
  ASSERT_FALSE(nan.ok());
  // relu(NaN) is 0, so the loss stays finite but the kernel's gradient does not.
  EXPECT_NE(nan.status().message().find("the gradient of 'hidden/kernel' holds NaN"), std::string::npos)
      << nan.status();

  // A NaN label makes the loss itself NaN.
  const DatasetPtr bad_label = *Pipeline::FromSlices({{"features", Tensor::FromVector<float>({1, 0}, Shape{1, 2})},
                                                      {"label", Tensor::FromVector<float>({std::nanf("")})}})
                                    .Batch({.batch_size = 1})
                                    .Build();
  auto nan_loss = plain.Fit(bad_label, {.epochs = 1});
  ASSERT_FALSE(nan_loss.ok());
  EXPECT_NE(nan_loss.status().message().find("the loss at step"), std::string::npos) << nan_loss.status();
}

TEST(TrainerTest, EarlyStoppingEndsTrainingWithoutImprovement) {
  auto model = Classifier(1);
  BinaryCrossentropy loss(true);
  Sgd sgd(Rate(0.0));  // never improves
  Trainer trainer(*model, loss, sgd);
  const DatasetPtr data = *LinearlySeparable(32, 1).Batch({.batch_size = 16}).Build();
  EarlyStopping stopper({.monitor = "loss", .patience = 1});
  auto history = trainer.Fit(data, {.epochs = 10, .callbacks = {&stopper}});
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->size(), 3u);  // best at 1, no gain at 2 and 3
}

TEST(TrainerTest, ADataParallelTrainerOfOneRankTrainsAsOneProcess) {
  // The same steps through the gradient buckets (executor/gradient_buckets.h),
  // the broadcast and the averaged logs, with one rank: the same numbers.
  const DatasetPtr train = *LinearlySeparable(256, 1).Batch({.batch_size = 32}).Build();
  auto alone = Classifier(3);
  auto ranked = Classifier(3);
  BinaryCrossentropy loss(true);
  Adam adam_alone(Rate(1e-2));
  Adam adam_ranked(Rate(1e-2));
  LocalCollectives local;
  TrainerOptions options = WithAccuracy();
  options.collectives = &local;
  options.buckets.bucket_bytes = 64;  // several buckets for this small model
  Trainer trainer_alone(*alone, loss, adam_alone, WithAccuracy());
  Trainer trainer_ranked(*ranked, loss, adam_ranked, options);
  auto history_alone = trainer_alone.Fit(train, {.epochs = 3});
  auto history_ranked = trainer_ranked.Fit(train, {.epochs = 3});
  ASSERT_TRUE(history_alone.ok()) << history_alone.status();
  ASSERT_TRUE(history_ranked.ok()) << history_ranked.status();
  EXPECT_EQ(history_ranked->back().samples, 256);
  EXPECT_EQ(history_ranked->back().values, history_alone->back().values);
  const std::vector<Variable*> a = alone->variables();
  const std::vector<Variable*> b = ranked->variables();
  ASSERT_EQ(a.size(), b.size());
  for (size_t v = 0; v < a.size(); ++v) {
    for (int64_t i = 0; i < a[v]->value().NumElements(); ++i) {
      ASSERT_EQ(a[v]->value().data<float>()[i], b[v]->value().data<float>()[i]) << a[v]->name();
    }
  }
}

}  // namespace
}  // namespace sluice

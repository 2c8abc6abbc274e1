#include "sluice/model/training_checkpoint.h"

#include <gtest/gtest.h>

#include <random>

#include "sluice/dataset/pipeline.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/dropout_layer.h"
#include "temp_dir.h"

namespace sluice {
namespace {

DatasetPtr TrainingData() {
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape{96, 3});
  Tensor y = Tensor::Allocate(DType::kInt64, Shape{96});
  std::mt19937_64 rng(5);
  std::normal_distribution<float> normal;
  for (int64_t i = 0; i < 96; ++i) {
    float* row = x.mutable_data<float>() + 3 * i;
    for (int j = 0; j < 3; ++j) row[j] = normal(rng);
    y.mutable_data<int64_t>()[i] = row[0] - row[2] > 0;
  }
  // An infinite stream: shuffle over the repeated data, so one iterator
  // serves every epoch and its position is part of the checkpoint.
  return *Pipeline::FromSlices({{"features", x}, {"label", y}})
              .Repeat(-1)
              .Shuffle({.buffer_size = 40, .seed = 9})
              .Batch({.batch_size = 16})
              .Prefetch(2)
              .Build();
}

// A fresh model, optimizer and trainer, as a new process would make them.
struct TrainingRun {
  std::unique_ptr<Model> model;
  BinaryCrossentropy loss{true};
  Adam adam{{.learning_rate = std::make_shared<ConstantLearningRate>(0.05)}};
  std::unique_ptr<Trainer> trainer;

  TrainingRun() {
    std::vector<std::unique_ptr<Layer>> layers;
    layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 6, .activation = Activation::kRelu}));
    layers.push_back(std::make_unique<DropoutLayer>("dropout", 0.25));
    layers.push_back(std::make_unique<Dense>("logits", DenseOptions{.units = 1}));
    model = *Model::Sequential({"features", DType::kFloat32, Shape{3}}, std::move(layers), 17);
    trainer = std::make_unique<Trainer>(*model, loss, adam);
  }
};

void ExpectSameParameters(Model& a, Model& b) {
  const auto va = a.variables(), vb = b.variables();
  ASSERT_EQ(va.size(), vb.size());
  for (size_t i = 0; i < va.size(); ++i) {
    EXPECT_TRUE(va[i]->value().Equals(vb[i]->value())) << va[i]->name() << " differs";
  }
}

TEST(TrainingCheckpointTest, ResumedRunMatchesTheUninterruptedOneBitForBit) {
  const FitOptions full{.epochs = 6, .steps_per_epoch = 5};
  TrainingRun uninterrupted;
  ASSERT_TRUE(uninterrupted.trainer->Fit(TrainingData(), full).ok());

  testing::TempDir dir;
  CheckpointManager manager(dir.path(), /*max_to_keep=*/2);
  {
    TrainingRun first;
    ModelCheckpoint saver(manager);
    ASSERT_TRUE(first.trainer->Fit(TrainingData(), {.epochs = 2, .steps_per_epoch = 5, .callbacks = {&saver}}).ok());
  }  // the "process" ends here
  TrainingRun resumed;
  auto contents = manager.RestoreLatest();
  ASSERT_TRUE(contents.ok()) << contents.status();
  ASSERT_TRUE(RestoreTrainingState(*resumed.trainer, *contents).ok());
  EXPECT_EQ(resumed.adam.iterations(), 10);
  EXPECT_EQ(resumed.trainer->epochs_done(), 2);
  FitOptions rest = full;
  rest.initial_epoch = resumed.trainer->epochs_done();
  auto history = resumed.trainer->Fit(TrainingData(), rest);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(history->size(), 4u);
  EXPECT_EQ(resumed.adam.iterations(), 30);
  ExpectSameParameters(*uninterrupted.model, *resumed.model);
}

TEST(TrainingCheckpointTest, ResumesAtAnEpochBoundaryOfAFiniteReshuffledDataset) {
  // One pass per epoch, reshuffled each epoch: the shuffle's epoch count
  // travels in the checkpoint.
  auto data = [] {
    Tensor x = Tensor::Allocate(DType::kFloat32, Shape{48, 3});
    Tensor y = Tensor::Allocate(DType::kInt64, Shape{48});
    for (int64_t i = 0; i < 48; ++i) {
      for (int j = 0; j < 3; ++j) x.mutable_data<float>()[3 * i + j] = static_cast<float>((i * 7 + j * 3) % 11) - 5;
      y.mutable_data<int64_t>()[i] = i % 3 == 0;
    }
    return *Pipeline::FromSlices({{"features", x}, {"label", y}})
                .Shuffle({.buffer_size = 48, .seed = 4})
                .Batch({.batch_size = 10})
                .Build();
  };
  TrainingRun uninterrupted;
  ASSERT_TRUE(uninterrupted.trainer->Fit(data(), {.epochs = 4}).ok());
  testing::TempDir dir;
  CheckpointManager manager(dir.path(), 1);
  {
    TrainingRun first;
    ModelCheckpoint saver(manager);
    ASSERT_TRUE(first.trainer->Fit(data(), {.epochs = 2, .callbacks = {&saver}}).ok());
  }
  TrainingRun resumed;
  ASSERT_TRUE(RestoreTrainingState(*resumed.trainer, *manager.RestoreLatest()).ok());
  auto history = resumed.trainer->Fit(data(), {.epochs = 4, .initial_epoch = 2});
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ((*history)[0].steps, 5);
  ExpectSameParameters(*uninterrupted.model, *resumed.model);
}

TEST(TrainingCheckpointTest, RefusesACheckpointOfAnotherModel) {
  TrainingRun run;
  ASSERT_TRUE(run.trainer->Fit(TrainingData(), {.epochs = 1, .steps_per_epoch = 2}).ok());
  auto contents = CaptureTrainingState(*run.trainer);
  ASSERT_TRUE(contents.ok()) << contents.status();

  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 7, .activation = Activation::kRelu}));
  layers.push_back(std::make_unique<Dense>("logits", DenseOptions{.units = 1}));
  auto other = *Model::Sequential({"features", DType::kFloat32, Shape{3}}, std::move(layers), 17);
  BinaryCrossentropy loss(true);
  Adam adam({.learning_rate = std::make_shared<ConstantLearningRate>(0.05)});
  Trainer trainer(*other, loss, adam);
  Status refused = RestoreTrainingState(trainer, *contents);
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("the checkpoint belongs to a different model"), std::string::npos) << refused;
  EXPECT_NE(refused.message().find("units: 6"), std::string::npos) << refused;
}

}  // namespace
}  // namespace sluice

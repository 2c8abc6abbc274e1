// A 5-class MLP (32 -> 64 -> 32 -> 5) trained on generated data: x ~ N(0, 1)
// in R^32, the class is the argmax of a fixed random projection, so the
// problem is learnable. Shows Sequential, sparse categorical cross-entropy
// on logits, Adam with a cosine schedule and gradient clipping, metrics and
// evaluate().
#include <cstdio>
#include <iostream>
#include <random>

#include "sluice/dataset/pipeline.h"
#include "sluice/model/adam.h"
#include "sluice/model/dense.h"
#include "sluice/model/trainer.h"

using namespace sluice;

namespace {

constexpr int kFeatures = 32, kClasses = 5;

Pipeline GenerateData(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed), projection_rng(1);  // one projection for every split
  std::normal_distribution<float> normal;
  std::vector<float> projection(kFeatures * kClasses);
  for (float& w : projection) w = normal(projection_rng);
  Tensor x = Tensor::Allocate(DType::kFloat32, Shape{n, kFeatures});
  Tensor y = Tensor::Allocate(DType::kInt64, Shape{n});
  for (int64_t i = 0; i < n; ++i) {
    float* row = x.mutable_data<float>() + i * kFeatures;
    for (int j = 0; j < kFeatures; ++j) row[j] = normal(rng);
    int best = 0;
    float best_score = -1e30f;
    for (int c = 0; c < kClasses; ++c) {
      float score = 0;
      for (int j = 0; j < kFeatures; ++j) score += row[j] * projection[j * kClasses + c];
      if (score > best_score) best_score = score, best = c;
    }
    y.mutable_data<int64_t>()[i] = best;
  }
  return Pipeline::FromSlices({{"features", x}, {"label", y}});
}

}  // namespace

int main() {
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("dense_1", DenseOptions{.units = 64, .activation = Activation::kRelu,
                                                                   .kernel_initializer = Initializer::kHeUniform}));
  layers.push_back(std::make_unique<Dense>("dense_2", DenseOptions{.units = 32, .activation = Activation::kRelu,
                                                                   .kernel_initializer = Initializer::kHeUniform}));
  layers.push_back(std::make_unique<Dense>("logits", DenseOptions{.units = kClasses}));
  auto model = Model::Sequential({"features", DType::kFloat32, Shape{kFeatures}}, std::move(layers), /*seed=*/7);
  if (!model.ok()) return std::fprintf(stderr, "%s\n", model.status().ToString().c_str()), 1;

  SparseCategoricalCrossentropy loss(/*from_logits=*/true);
  Adam adam({.learning_rate = std::make_shared<CosineDecay>(3e-3, /*decay_steps=*/1000, /*alpha=*/0.1),
             .clip_global_norm = 5.0});
  Trainer trainer(**model, loss, adam,
                  {.metrics = {[] { return std::make_unique<SparseCategoricalAccuracy>("accuracy"); }}});

  auto train = GenerateData(8000, 2).Shuffle({.buffer_size = 8000, .seed = 3}).Batch({.batch_size = 64}).Prefetch(kAutotune).Build();
  auto validation = GenerateData(2000, 4).Batch({.batch_size = 256}).Build();
  if (!train.ok() || !validation.ok()) return 1;
  auto history = trainer.Fit(*train, {.epochs = 8, .validation = *validation, .progress = &std::cout});
  if (!history.ok()) return std::fprintf(stderr, "%s\n", history.status().ToString().c_str()), 1;
  const double accuracy = history->back().values.at("val_accuracy");
  std::printf("validation accuracy %.4f\n", accuracy);
  return accuracy >= 0.85 ? 0 : 1;
}

#include "sluice/model/model.h"

#include <gtest/gtest.h>

#include "sluice/executor/gradient_tape.h"
#include "sluice/model/dense.h"
#include "sluice/model/dropout_layer.h"
#include "sluice/model/embedding.h"
#include "sluice/model/masked_mean_pooling.h"
#include "sluice/model/model.pb.h"
#include "sluice/ops/reduce_ops.h"

namespace sluice {
namespace {

std::unique_ptr<Model> TwoLayerModel(uint64_t seed) {
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 4, .activation = Activation::kRelu}));
  layers.push_back(std::make_unique<Dense>("out", DenseOptions{.units = 1}));
  auto model = Model::Sequential({"x", DType::kFloat32, Shape{3}}, std::move(layers), seed);
  EXPECT_TRUE(model.ok()) << model.status();
  return *std::move(model);
}

TEST(ModelTest, SequentialBuildsVariablesFromTheSeed) {
  auto a = TwoLayerModel(7), b = TwoLayerModel(7), c = TwoLayerModel(8);
  ASSERT_EQ(a->variables().size(), 4u);
  EXPECT_EQ(a->variables()[0]->name(), "hidden/kernel");
  EXPECT_EQ(a->variables()[0]->value().shape(), (Shape{3, 4}));
  EXPECT_EQ(a->variables()[3]->name(), "out/bias");
  EXPECT_TRUE(a->variables()[0]->value().Equals(b->variables()[0]->value()));
  EXPECT_FALSE(a->variables()[0]->value().Equals(c->variables()[0]->value()));
  // Glorot uniform bound sqrt(6 / (3 + 4)).
  const float* w = a->variables()[0]->value().data<float>();
  for (int i = 0; i < 12; ++i) EXPECT_LE(std::abs(w[i]), std::sqrt(6.0f / 7));
}

TEST(ModelTest, CallComputesDenseLayersAndIsDifferentiable) {
  auto model = TwoLayerModel(1);
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, -1, 0, 1}, Shape{2, 3});
  const Tensor inputs[] = {x};
  GradientTape tape;
  for (Variable* v : model->trainable_variables()) tape.Watch(*v);
  Result<Tensor> y = model->CallSingle(inputs, /*training=*/true);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), (Shape{2, 1}));
  auto grads = tape.Gradient(*Sum(*y), model->trainable_variables());
  ASSERT_TRUE(grads.ok()) << grads.status();
  EXPECT_EQ((*grads)[3].data<float>()[0], 2);  // d sum / d out-bias = batch size
}

TEST(ModelTest, SignatureErrorsNameTheInputAndBothShapes) {
  auto model = TwoLayerModel(1);
  const Tensor wrong_width[] = {Tensor::Allocate(DType::kFloat32, Shape{2, 4})};
  Result<Tensor> bad = model->CallSingle(wrong_width, false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("input 'x' must have shape [?, 3] (batch first, any batch size), got [2, 4]"),
            std::string::npos)
      << bad.status();
  const Tensor wrong_dtype[] = {Tensor::Allocate(DType::kFloat64, Shape{2, 3})};
  EXPECT_NE(model->CallSingle(wrong_dtype, false).status().message().find("input 'x' must be float32[?, 3]"),
            std::string::npos);
  const Tensor wrong_rank[] = {Tensor::Allocate(DType::kFloat32, Shape{3})};
  EXPECT_FALSE(model->CallSingle(wrong_rank, false).ok());
}

TEST(ModelTest, BuildErrorsSurfaceBeforeData) {
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("d", DenseOptions{.units = 2}));
  layers.push_back(std::make_unique<Dense>("d", DenseOptions{.units = 2}));
  auto twice = Model::Sequential({"x", DType::kFloat32, Shape{3}}, std::move(layers), 1);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("layer name 'd' is used twice"), std::string::npos);
  std::vector<std::unique_ptr<Layer>> dense;
  dense.push_back(std::make_unique<Dense>("d", DenseOptions{.units = 2}));
  auto ints = Model::Sequential({"x", DType::kInt64, Shape{3}}, std::move(dense), 1);
  ASSERT_FALSE(ints.ok());
  EXPECT_NE(ints.status().message().find("Dense 'd' expects float32 inputs"), std::string::npos);
}

TEST(ModelTest, FunctionalTextClassifierWithTwoInputLayer) {
  ModelBuilder builder;
  ModelNode ids = builder.Input({"tokens", DType::kInt64, Shape{4}});
  ModelNode vectors = builder.Apply(std::make_unique<Embedding>("embed", EmbeddingOptions{10, 3}), {ids});
  ModelNode pooled = builder.Apply(std::make_unique<MaskedMeanPooling>("pool"), {vectors, ids});
  ModelNode dropped = builder.Apply(std::make_unique<DropoutLayer>("drop", 0.5), {pooled});
  ModelNode logits = builder.Apply(std::make_unique<Dense>("logits", DenseOptions{.units = 2}), {dropped});
  auto model = std::move(builder).Build({logits}, 3, {"logits"});
  ASSERT_TRUE(model.ok()) << model.status();
  const Tensor batch[] = {Tensor::FromVector<int64_t>({1, 2, 0, 0, 3, 0, 0, 0}, Shape{2, 4})};
  Result<Tensor> inference = (*model)->CallSingle(batch, false);
  ASSERT_TRUE(inference.ok()) << inference.status();
  EXPECT_EQ(inference->shape(), (Shape{2, 2}));
  // Inference is deterministic; training drops values.
  EXPECT_TRUE(inference->Equals(*(*model)->CallSingle(batch, false)));
  EXPECT_FALSE(inference->Equals(*(*model)->CallSingle(batch, true)));
  // The graph round-trips.
  model::ModelGraph graph = (*model)->ToGraph();
  EXPECT_EQ(graph.nodes_size(), 4);
  EXPECT_EQ(graph.nodes(1).inputs_size(), 2);
  auto rebuilt = Model::FromGraph(graph);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
  EXPECT_EQ((*rebuilt)->variables().size(), (*model)->variables().size());
  EXPECT_EQ((*rebuilt)->output_names()[0], "logits");
}

}  // namespace
}  // namespace sluice

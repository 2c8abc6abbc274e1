#include "sluice/model/export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sluice/model/dense.h"
#include "temp_dir.h"

namespace sluice {
namespace {

std::unique_ptr<Model> MakeModel() {
  std::vector<std::unique_ptr<Layer>> layers;
  layers.push_back(std::make_unique<Dense>("hidden", DenseOptions{.units = 5, .activation = Activation::kTanh}));
  layers.push_back(std::make_unique<Dense>("out", DenseOptions{.units = 2}));
  return *Model::Sequential({"features", DType::kFloat32, Shape{3}}, std::move(layers), 11);
}

TEST(ExportTest, ReloadedModelGivesTheSameOutputs) {
  testing::TempDir dir;
  auto model = MakeModel();
  const std::string path = dir.path() + "/bundle";
  ASSERT_TRUE(ExportModel(*model, path).ok());
  auto loaded = ExportedModel::Load(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ((*loaded)->inputs().size(), 1u);
  EXPECT_EQ((*loaded)->inputs()[0].name, "features");
  EXPECT_EQ((*loaded)->inputs()[0].shape, (Shape{3}));
  for (int64_t batch : {1, 7}) {
    Tensor x = Tensor::Allocate(DType::kFloat32, Shape{batch, 3});
    for (int64_t i = 0; i < x.NumElements(); ++i) x.mutable_data<float>()[i] = 0.1f * i - 0.5f;
    const Tensor inputs[] = {x};
    Result<Tensor> expected = model->CallSingle(inputs, false);
    Result<std::vector<Tensor>> got = (*loaded)->Call(inputs);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE((*got)[0].Equals(*expected));
  }
  auto named = (*loaded)->Call(std::map<std::string, Tensor>{{"features", Tensor::Allocate(DType::kFloat32, Shape{2, 3})}});
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->count("output_0"), 1u);
  EXPECT_EQ(ExportModel(*model, path).code(), StatusCode::kAlreadyExists);
}

TEST(ExportTest, ContractErrorsNameTheInputAndBothShapes) {
  testing::TempDir dir;
  auto model = MakeModel();
  ASSERT_TRUE(ExportModel(*model, dir.path() + "/m").ok());
  auto loaded = *ExportedModel::Load(dir.path() + "/m");
  const Tensor dtype[] = {Tensor::Allocate(DType::kInt64, Shape{2, 3})};
  Status bad = loaded->Call(dtype).status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("input 'features' must be float32[?, 3] (batch first), got int64[2, 3]"),
            std::string::npos)
      << bad;
  const Tensor rank[] = {Tensor::Allocate(DType::kFloat32, Shape{3})};
  EXPECT_NE(loaded->Call(rank).status().message().find("input 'features' must have shape [?, 3]"), std::string::npos);
  const Tensor width[] = {Tensor::Allocate(DType::kFloat32, Shape{2, 4})};
  EXPECT_NE(loaded->Call(width).status().message().find("got [2, 4]"), std::string::npos);
  EXPECT_EQ(loaded->Call(std::map<std::string, Tensor>{}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(loaded->Call(std::map<std::string, Tensor>{{"features", *width}, {"extra", *width}})
                .status()
                .message()
                .find("no input named 'extra'"),
            std::string::npos);
}

TEST(ExportTest, MissingOrDamagedBundles) {
  testing::TempDir dir;
  EXPECT_EQ(ExportedModel::Load(dir.path() + "/none").status().code(), StatusCode::kNotFound);
  auto model = MakeModel();
  ASSERT_TRUE(ExportModel(*model, dir.path() + "/m").ok());
  std::ofstream(dir.path() + "/m/weights.sluice", std::ios::binary | std::ios::trunc) << "junk";
  EXPECT_EQ(ExportedModel::Load(dir.path() + "/m").status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace sluice

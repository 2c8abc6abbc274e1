#include "sluice/dataset/from_tensors_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(FromTensorsDatasetTest, ExactlyOneElement) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3});
  auto pipeline = Pipeline::FromTensors({{"x", x}, {"label", Tensor::Scalar<int64_t>(1)}});
  testing::ExpectProduces(pipeline, {Element{x, Tensor::Scalar<int64_t>(1)}});
  DatasetPtr dataset = *pipeline.Build();
  EXPECT_EQ(dataset->cardinality(), 1);
  EXPECT_EQ(dataset->element_spec().ToString(), "(x: float32[3], label: int64[])");
}

TEST(FromTensorsDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeFromTensorsDataset({}), StatusCode::kInvalidArgument, "at least one component");
  testing::ExpectError(MakeFromTensorsDataset({{"", Tensor()}}), StatusCode::kInvalidArgument, "invalid tensor");
}

TEST(FromTensorsDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(*MakeFromTensorsDataset({{"", Tensor::Scalar<int64_t>(1)}}), 0);
}

}  // namespace
}  // namespace sluice

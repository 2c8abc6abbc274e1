#include "sluice/dataset/from_slices_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

using testing::Collect;
using testing::ExpectError;
using testing::ExpectProduces;
using testing::Vec;

TEST(FromSlicesDatasetTest, SlicesNamedComponentsAlongDimZero) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape{3, 2});
  Tensor y = Vec({7, 8, 9});
  auto pipeline = Pipeline::FromSlices({{"x", x}, {"y", y}});
  std::vector<Element> expected;
  for (int64_t i = 0; i < 3; ++i) {
    expected.push_back(Element{Tensor::FromVector<float>({float(2 * i + 1), float(2 * i + 2)}),
                               Tensor::Scalar<int64_t>(7 + i)});
  }
  ExpectProduces(pipeline, expected);
  DatasetPtr dataset = *pipeline.Build();
  EXPECT_EQ(dataset->element_spec(), (ElementSpec{{"x", DType::kFloat32, Shape{2}}, {"y", DType::kInt64, Shape{}}}));
  EXPECT_EQ(dataset->cardinality(), 3);
}

TEST(FromSlicesDatasetTest, StringComponents) {
  Tensor s = Tensor::FromVector<std::string>({"a", "bc"});
  ExpectProduces(Pipeline::FromSlices({{"", s}}),
                 {Element{Tensor::Scalar(std::string("a"))}, Element{Tensor::Scalar(std::string("bc"))}});
}

TEST(FromSlicesDatasetTest, EmptyLeadingDimensionIsEmpty) {
  ExpectProduces(Pipeline::FromSlices({{"", Tensor::Allocate(DType::kInt64, Shape{0, 3})}}), {});
}

TEST(FromSlicesDatasetTest, RunsAreViewsOfConsecutiveRows) {
  Tensor x = Tensor::FromVector<float>(std::vector<float>(20, 1.5f), Shape{10, 2});
  testing::ExpectRunsMatchElements(*MakeFromSlicesDataset({{"x", x}, {"y", Vec({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})}}), 4);
}

TEST(FromSlicesDatasetTest, InvalidArguments) {
  ExpectError(MakeFromSlicesDataset({}), StatusCode::kInvalidArgument, "at least one component");
  ExpectError(MakeFromSlicesDataset({{"", Tensor::Scalar<int64_t>(1)}}), StatusCode::kInvalidArgument,
              "at least 1-dimensional");
  ExpectError(MakeFromSlicesDataset({{"a", Vec({1, 2})}, {"b", Vec({1, 2, 3})}}), StatusCode::kInvalidArgument,
              "same size in the 0th dimension");
}

TEST(FromSlicesDatasetTest, DatasetOutlivesItsBuilderAndIteratorsAreIndependent) {
  auto it = Pipeline::FromSlices({{"", Vec({4, 5})}}).MakeIterator();
  ASSERT_TRUE(it.ok());
  auto first = (*it)->GetNext();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((**first)[0].scalar<int64_t>(), 4);
}

TEST(FromSlicesDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(*MakeFromSlicesDataset({{"", Vec({1, 2, 3})}}), 1);
}

}  // namespace
}  // namespace sluice

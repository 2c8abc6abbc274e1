#include "dataset/range_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

using testing::ExpectProduces;
using testing::Ints;

// tf.data's documented examples for Dataset.range.
TEST(RangeDatasetTest, DocumentedExamples) {
  ExpectProduces(Pipeline::Range(5), Ints({0, 1, 2, 3, 4}));
  ExpectProduces(Pipeline::Range({.start = 2, .stop = 5}), Ints({2, 3, 4}));
  ExpectProduces(Pipeline::Range({.start = 1, .stop = 5, .step = 2}), Ints({1, 3}));
  ExpectProduces(Pipeline::Range({.start = 1, .stop = 5, .step = -2}), {});
  ExpectProduces(Pipeline::Range({.start = 5, .stop = 1}), {});
  ExpectProduces(Pipeline::Range({.start = 5, .stop = 1, .step = -2}), Ints({5, 3}));
}

TEST(RangeDatasetTest, OutputDType) {
  auto pipeline = Pipeline::Range({.start = 1, .stop = 5, .step = 2, .dtype = DType::kFloat32});
  ExpectProduces(pipeline, {Element{Tensor::Scalar(1.0f)}, Element{Tensor::Scalar(3.0f)}});
  EXPECT_EQ((*pipeline.Build())->element_spec(), (ElementSpec{{"", DType::kFloat32, Shape{}}}));
}

TEST(RangeDatasetTest, Cardinality) {
  EXPECT_EQ((*MakeRangeDataset({.start = 0, .stop = 10, .step = 3}))->cardinality(), 4);
  EXPECT_EQ((*MakeRangeDataset({.start = 10, .stop = 0, .step = -3}))->cardinality(), 4);
  EXPECT_EQ((*MakeRangeDataset({.start = 0, .stop = 0}))->cardinality(), 0);
}

TEST(RangeDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeRangeDataset({.start = 0, .stop = 3, .step = 0}), StatusCode::kInvalidArgument,
                       "step must be a non-zero integer");
  testing::ExpectError(MakeRangeDataset({.stop = 3, .dtype = DType::kString}), StatusCode::kInvalidArgument,
                       "numeric");
}

TEST(RangeDatasetTest, EarlyDestruction) { testing::ExpectEarlyDestructionIsClean(*MakeRangeDataset({.stop = 100}), 3); }

}  // namespace
}  // namespace sluice

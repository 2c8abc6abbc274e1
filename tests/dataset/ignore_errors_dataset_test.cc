#include "sluice/dataset/ignore_errors_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(IgnoreErrorsDatasetTest, DropsFailedElements) {
  auto pipeline = testing::FailingRange(8, {0, 3, 4, 7}).IgnoreErrors();
  testing::ExpectProduces(pipeline, testing::Ints({1, 2, 5, 6}));
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), kUnknownCardinality);
}

// tf.data's documented example: a failing check inside map, then ignore_errors.
TEST(IgnoreErrorsDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::FromSlices({{"", Tensor::FromVector<float>({1.0f, 2.0f, 0.0f, 4.0f})}})
                      .Map([](Element e) -> Result<Element> {
                        const float x = e[0].scalar<float>();
                        if (x == 0) return InvalidArgumentError("Tensor had Inf values");
                        return Element{Tensor::Scalar(1.0f / x)};
                      })
                      .IgnoreErrors();
  testing::ExpectProduces(pipeline, {Element{Tensor::Scalar(1.0f)}, Element{Tensor::Scalar(0.5f)},
                                     Element{Tensor::Scalar(0.25f)}});
}

TEST(IgnoreErrorsDatasetTest, AfterPrefetchAndBatch) {
  testing::ExpectProduces(testing::FailingRange(7, {2, 5}).Prefetch(2).IgnoreErrors().Batch({.batch_size = 5}),
                          {Element{testing::Vec({0, 1, 3, 4, 6})}});
}

TEST(IgnoreErrorsDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeIgnoreErrorsDataset(nullptr), StatusCode::kInvalidArgument, "null");
}

TEST(IgnoreErrorsDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(testing::FailingRange(100, {1, 2}).Prefetch(2).IgnoreErrors()), 3);
}

}  // namespace
}  // namespace sluice

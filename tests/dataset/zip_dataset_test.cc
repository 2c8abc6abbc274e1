#include "sluice/dataset/zip_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(ZipDatasetTest, DocumentedExampleAndShortestWins) {
  auto a = Pipeline::Range({.start = 1, .stop = 4});
  auto b = Pipeline::Range({.start = 4, .stop = 7});
  auto c = Pipeline::Range({.start = 13, .stop = 15});
  auto pair = [](int64_t x, int64_t y) { return Element{Tensor::Scalar<int64_t>(x), Tensor::Scalar<int64_t>(y)}; };
  testing::ExpectProduces(a.Zip({b}), {pair(1, 4), pair(2, 5), pair(3, 6)});
  testing::ExpectProduces(a.Zip({b, c}), {Element{Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(4), Tensor::Scalar<int64_t>(13)},
                                          Element{Tensor::Scalar<int64_t>(2), Tensor::Scalar<int64_t>(5), Tensor::Scalar<int64_t>(14)}});
}

TEST(ZipDatasetTest, SpecAndCardinality) {
  auto x = Pipeline::FromSlices({{"x", testing::Vec({1, 2, 3})}});
  auto y = Pipeline::FromSlices({{"y", Tensor::FromVector<float>({1, 2})}});
  DatasetPtr zipped = testing::Build(x.Zip({y}));
  EXPECT_EQ(zipped->element_spec().ToString(), "(x: int64[], y: float32[])");
  EXPECT_EQ(zipped->cardinality(), 2);
  EXPECT_EQ(testing::Build(x.Repeat().Zip({y}))->cardinality(), 2);
  EXPECT_EQ(testing::Build(x.Repeat().Zip({y.Repeat()}))->cardinality(), kInfiniteCardinality);
  EXPECT_EQ(testing::Build(x.Filter([](const Element&) -> Result<bool> { return true; }).Zip({y}))->cardinality(),
            kUnknownCardinality);
}

TEST(ZipDatasetTest, ErrorInOneInputIsThatPositionsError) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(3, {1}).Zip({Pipeline::Range(3)})));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_TRUE(results[2]->Equals(Element{Tensor::Scalar<int64_t>(2), Tensor::Scalar<int64_t>(1)}))
      << "zip asks its inputs in order, so the failed position did not advance the second input";
}

TEST(ZipDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeZipDataset({*MakeRangeDataset({.stop = 1})}), StatusCode::kInvalidArgument,
                       "at least two datasets");
  auto x = Pipeline::FromSlices({{"x", testing::Vec({1})}});
  testing::ExpectError(x.Zip({x}), StatusCode::kInvalidArgument, "component name 'x' appears in more than one input");
}

TEST(ZipDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Zip({Pipeline::Range(50).Prefetch(2)})), 3);
}

}  // namespace
}  // namespace sluice

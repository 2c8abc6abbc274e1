#include "sluice/dataset/pipeline.h"

#include "contract.h"

namespace sluice {
namespace {

TEST(PipelineTest, RangeForOverElements) {
  std::vector<int64_t> seen;
  auto elements = Pipeline::Range(5).Map([](Element e) -> Result<Element> { return e; }).Batch({.batch_size = 2}).Elements();
  for (const Element& batch : elements) {
    for (int64_t i = 0; i < batch[0].dim(0); ++i) seen.push_back(batch[0].data<int64_t>()[i]);
  }
  EXPECT_TRUE(elements.status().ok()) << elements.status();
  EXPECT_EQ(seen, (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

TEST(PipelineTest, RangeForStopsAtTheFirstErrorAndReportsIt) {
  int count = 0;
  auto elements = testing::FailingRange(5, {2}).Elements();
  for (const Element& e : elements) {
    (void)e;
    ++count;
  }
  EXPECT_EQ(count, 2);
  EXPECT_EQ(elements.status().code(), StatusCode::kInvalidArgument);
}

TEST(PipelineTest, TheFirstConstructionErrorIsKept) {
  auto pipeline = Pipeline::Range({.stop = 3, .step = 0}).Shuffle({.buffer_size = 0}).Batch({.batch_size = 2});
  ASSERT_FALSE(pipeline.Build().ok());
  EXPECT_NE(pipeline.Build().status().message().find("step must be a non-zero integer"), std::string::npos);
  auto elements = pipeline.Elements();
  EXPECT_EQ(elements.begin(), elements.end());
  EXPECT_EQ(elements.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(pipeline.MakeIterator().ok());
}

TEST(PipelineTest, NothingRunsUntilIteration) {
  auto calls = std::make_shared<int>(0);
  auto pipeline = Pipeline::Range(3).Map([calls](Element e) -> Result<Element> {
    ++*calls;
    return e;
  }).Prefetch(2);
  ASSERT_TRUE(pipeline.Build().ok());
  EXPECT_EQ(*calls, 0);
  EXPECT_EQ(testing::Collect(pipeline).size(), 3u);
  EXPECT_EQ(*calls, 3);
}

TEST(PipelineTest, DescribeGraphShowsOpsSpecsAndCardinality) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(10).Batch({.batch_size = 4, .drop_remainder = true}).Repeat());
  EXPECT_EQ(DescribeGraph(*dataset),
            "repeat(count=-1) -> (int64[4]) cardinality=infinite\n"
            "  batch(batch_size=4, drop_remainder=true) -> (int64[4]) cardinality=2\n"
            "    range(start=0, stop=10, step=1, dtype=int64) -> (int64[]) cardinality=10\n");
}

}  // namespace
}  // namespace sluice

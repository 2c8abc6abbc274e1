#include "dataset/prefetch_dataset.h"

#include <atomic>

#include "contract.h"

namespace sluice {
namespace {

TEST(PrefetchDatasetTest, SameElementsForEveryBufferSize) {
  for (int64_t buffer_size : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{100}, kAutotune}) {
    auto pipeline = Pipeline::Range(50).Prefetch(buffer_size);
    testing::ExpectProduces(pipeline, testing::IntRange(0, 50));
    EXPECT_EQ((*pipeline.Build())->cardinality(), 50);
  }
}

TEST(PrefetchDatasetTest, ErrorsArriveInOrderAndTheStreamGoesOn) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(6, {0, 3, 5}).Prefetch(2)));
  ASSERT_EQ(results.size(), 6u);
  testing::ExpectFailedElement(results[0], 0);
  EXPECT_EQ((*results[1])[0].scalar<int64_t>(), 1);
  EXPECT_EQ((*results[2])[0].scalar<int64_t>(), 2);
  testing::ExpectFailedElement(results[3], 3);
  EXPECT_EQ((*results[4])[0].scalar<int64_t>(), 4);
  testing::ExpectFailedElement(results[5], 5);
}

// The producer runs ahead on its own thread, but never more than
// buffer_size elements ahead of the consumer.
TEST(PrefetchDatasetTest, ProducesAheadInTheBackgroundWithinTheBuffer) {
  auto produced = std::make_shared<std::atomic<int>>(0);
  auto pipeline = Pipeline::Range(100)
                      .Map([produced](Element e) -> Result<Element> {
                        produced->fetch_add(1);
                        return e;
                      })
                      .Prefetch(5);
  auto it = *pipeline.MakeIterator();
  ASSERT_TRUE(it->GetNext().ok());
  for (int i = 0; i < 2500 && produced->load() < 5; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  EXPECT_GE(produced->load(), 5);  // ran ahead of the one element consumed
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_LE(produced->load(), 6);  // 1 consumed + at most 5 buffered
}

TEST(PrefetchDatasetTest, EarlyDestructionWithABlockedProducerReturnsPromptly) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(-1 + (int64_t{1} << 40)).Prefetch(4)), 3);
  // Nested prefetches over an infinite input, destroyed mid-stream.
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Pipeline::Range(10).Repeat().Prefetch(2).Map([](Element e) -> Result<Element> { return e; })
                         .Prefetch(3)),
      5);
  // Destroyed before the first GetNext: no thread was started.
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(10).Prefetch(2)), 0);
}

TEST(PrefetchDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Prefetch(-2), StatusCode::kInvalidArgument,
                       "buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning");
}

// The buffer is charged to the traversal's RAM budget: a large buffer of
// 1 KiB elements holds only what fits, and everything is released at the end.
TEST(PrefetchDatasetTest, BufferStaysWithinTheRamBudget) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(200)
                                          .Map([](Element) -> Result<Element> {
                                            return Element{Tensor::Allocate(DType::kFloat32, Shape{256})};
                                          },
                                               {.output_spec = ElementSpec{{"x", DType::kFloat32, Shape{256}}}})
                                          .Prefetch(100));
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 4 * 1024});
  {
    auto it = dataset->MakeIterator(ctx);
    ASSERT_TRUE(it->GetNext().ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the producer fills what it may
    EXPECT_LE(ctx.runtime->ram_budget().used(), 4 * 1024);
    EXPECT_GT(ctx.runtime->ram_budget().throttles(), 0);
    EXPECT_EQ(testing::Ok(testing::CollectAll(*it)).size(), 199u);
    EXPECT_LE(ctx.runtime->ram_budget().peak(), 4 * 1024);
  }
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

}  // namespace
}  // namespace sluice

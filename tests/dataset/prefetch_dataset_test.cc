#include "sluice/dataset/prefetch_dataset.h"

#include <atomic>
#include <chrono>
#include <thread>

#include "contract.h"
#include "sluice/dataset/autotuner.h"
#include "sluice/dataset/runtime.h"

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
  // An autotuned buffer, whichever size (0 included) the autotuner has set
  // by then.
  for (int steps : {0, 3, 200, 5000}) {
    testing::ExpectEarlyDestructionIsClean(
        testing::Build(Pipeline::Range(-1 + (int64_t{1} << 40)).Prefetch(kAutotune)), steps);
  }
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

// A parallel map's results pass into the prefetch buffer without being
// charged twice, and neither ever takes the budget past its limit.
TEST(PrefetchDatasetTest, ParallelMapIntoPrefetchNeverPassesTheRamBudget) {
  auto make = [](Element) -> Result<Element> { return Element{Tensor::Allocate(DType::kFloat32, Shape{256})}; };
  for (int64_t buffer_size : {int64_t{100}, kAutotune}) {
    DatasetPtr dataset =
        testing::Build(Pipeline::Range(300)
                           .Map(make, {.output_spec = ElementSpec{{"x", DType::kFloat32, Shape{256}}}},
                                {.num_parallel_calls = 4})
                           .Prefetch(buffer_size));
    IteratorContext ctx;
    ctx.runtime = Runtime::Create({.cpu_budget = 2, .ram_budget_bytes = 8 * 1024});  // 8 elements of 1 KiB
    {
      auto it = dataset->MakeIterator(ctx);
      for (int i = 0; i < 300; ++i) {
        Result<std::optional<Element>> next = it->GetNext();
        ASSERT_TRUE(next.ok() && next->has_value()) << i;
        if (i % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let the buffers fill
      }
      EXPECT_FALSE(testing::Ok(it->GetNext()).has_value());
      EXPECT_GT(ctx.runtime->ram_budget().peak(), 0);
      EXPECT_LE(ctx.runtime->ram_budget().peak(), 8 * 1024) << "buffer_size " << buffer_size;
    }
    EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
  }
}

// With buffer_size kAutotune, a consumer that does no work of its own
// between calls gains nothing from a buffer: the autotuner sets it to 0 and
// the consumer reads the input inline. A consumer with work to overlap gets
// a buffer. The elements are the same throughout.
TEST(PrefetchDatasetTest, AutotunedBufferFollowsTheConsumersWork) {
  auto value_of = [](Runtime& runtime) -> int64_t {
    for (const AutotuneDecision& decision : runtime.autotuner().Decisions()) {
      if (decision.name == "prefetch#0") return decision.value;
    }
    return -1;
  };
  auto slow = [](Element e) -> Result<Element> {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return e;
  };
  for (const bool consumer_works : {false, true}) {
    DatasetPtr dataset = testing::Build(Pipeline::Range(int64_t{1} << 40).Map(slow).Prefetch(kAutotune));
    IteratorContext ctx;
    ctx.runtime = Runtime::Create({.cpu_budget = 2});
    auto it = dataset->MakeIterator(ctx);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int64_t expected = 0;
    // Until the autotuner has decided (a round needs 8 outputs; rounds come
    // at 10, 30, 70, ... ms), then 50 more elements read with no buffer.
    // (A round's window may include the test thread being descheduled,
    // which looks like consumer work: a later round takes the buffer away.)
    int inline_reads = 0;
    bool buffered = false;
    for (; inline_reads < 50 && std::chrono::steady_clock::now() < deadline; expected++) {
      Result<std::optional<Element>> next = it->GetNext();
      ASSERT_TRUE(next.ok() && next->has_value());
      ASSERT_EQ((**next)[0].scalar<int64_t>(), expected);
      if (consumer_works) std::this_thread::sleep_for(std::chrono::microseconds(600));
      if (ctx.runtime->autotuner().rounds() < 1) continue;
      const int64_t value = value_of(*ctx.runtime);
      if (value == 0) ++inline_reads;
      if (value >= 1) buffered = true;
      if (consumer_works && ctx.runtime->autotuner().rounds() >= 2) break;
    }
    if (consumer_works) {
      EXPECT_TRUE(buffered);
      EXPECT_EQ(inline_reads, 0);  // both sides have >= 300 us of work to overlap
    } else {
      EXPECT_EQ(inline_reads, 50);
    }
  }
}

}  // namespace
}  // namespace sluice

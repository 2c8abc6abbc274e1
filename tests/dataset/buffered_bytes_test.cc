#include "sluice/dataset/buffered_bytes.h"

#include <chrono>
#include <limits>
#include <thread>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"

namespace sluice {
namespace {

constexpr int64_t kBudget = 64 << 10;
constexpr int64_t kHuge = int64_t{1} << 40;
const ElementSpec kEmptyRow{{"", DType::kInt64, PartialShape{0}}};
const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// `count` elements (endless for -1) that hold no bytes: int64[0] vectors.
Pipeline EmptyElements(int64_t count = -1) {
  return Pipeline::FromSlices({{"", Tensor::Allocate(DType::kInt64, Shape{1, 0})}}).Repeat(count);
}

// `count` errors (endless for -1), each with a message of 100 bytes.
Pipeline Errors(int64_t count = -1, MapOptions options = {}) {
  return EmptyElements(count).Map([](Element) -> Result<Element> { return DataLossError(std::string(100, 'x')); },
                                  {.output_spec = kEmptyRow}, options);
}

TEST(BufferedBytesTest, ChargesTheEntryBesideTheTensorsAndAnErrorsMessage) {
  const Element empty{Tensor::Allocate(DType::kInt64, Shape{0})};
  EXPECT_EQ(BufferedBytes(empty), kBufferEntryBytes + kBufferTensorBytes);
  const Element two{Tensor::FromVector(std::vector<int64_t>(100, 1)), Tensor::Allocate(DType::kFloat32, Shape{0})};
  EXPECT_EQ(BufferedBytes(two), 800 + kBufferEntryBytes + 2 * kBufferTensorBytes);
  const Status error = DataLossError("broken");
  EXPECT_EQ(BufferedBytes(error), kBufferEntryBytes + static_cast<int64_t>(error.message().size()));
  EXPECT_EQ(BufferedBytes(Result<Element>(error)), BufferedBytes(error));
  EXPECT_EQ(BufferedBytes(Result<Element>(two)), BufferedBytes(two));
}

IteratorContext BudgetedContext() {
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.cpu_budget = 2, .ram_budget_bytes = kBudget});
  return ctx;
}

// An op that reads ahead into a buffer of 2^40 entries (prefetch, a parallel
// map, a parallel interleave) over an endless input of empty elements or of
// errors: its producer stops at the RAM budget (it waits, throttled) rather
// than filling memory, and every charge is released with the iterator.
void ExpectReadAheadStopsAtTheBudget(const Pipeline& pipeline) {
  IteratorContext ctx = BudgetedContext();
  RamBudget& budget = ctx.runtime->ram_budget();
  {
    std::unique_ptr<Iterator> it = testing::Build(pipeline)->MakeIterator(ctx);
    (void)it->GetNext();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (budget.throttles() == 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_GT(budget.throttles(), 0) << "the producer never waited for the budget";
    EXPECT_LE(budget.peak(), kBudget);
  }
  EXPECT_EQ(budget.used(), 0);
}

TEST(BufferedBytesTest, PrefetchOfEmptyElementsOrErrorsStopsAtTheBudget) {
  ExpectReadAheadStopsAtTheBudget(EmptyElements().Prefetch(kHuge));
  ExpectReadAheadStopsAtTheBudget(Errors().Prefetch(kHuge));
}

TEST(BufferedBytesTest, ParallelMapOfEmptyElementsOrErrorsStopsAtTheBudget) {
  ExpectReadAheadStopsAtTheBudget(EmptyElements().Map([](Element e) -> Result<Element> { return e; },
                                                      {.output_spec = kEmptyRow}, {.num_parallel_calls = 1 << 20}));
  ExpectReadAheadStopsAtTheBudget(Errors(-1, {.num_parallel_calls = 1 << 20}));
}

TEST(BufferedBytesTest, ParallelInterleaveOfLongBlocksStopsAtTheBudget) {
  // A block length whose buffer size, 2 * block_length + 1, passes int64.
  for (const int64_t block_length : {kHuge, std::numeric_limits<int64_t>::max()}) {
    for (const bool errors : {false, true}) {
      ExpectReadAheadStopsAtTheBudget(Pipeline::Range(4).Interleave(
          [errors](const Element&) -> Result<DatasetPtr> {
            return testing::Build(errors ? Errors() : EmptyElements());
          },
          kEmptyRow, {.cycle_length = 2, .block_length = block_length, .num_parallel_calls = 2}));
    }
  }
}

// An op that holds a window, group or bucket of 2^40 elements over 100,000
// empty elements or errors: the one being filled is ResourceExhausted at
// the budget, instead of holding them all.
void ExpectHoldingIsExhausted(const Pipeline& pipeline, const std::string& message) {
  IteratorContext ctx = BudgetedContext();
  RamBudget& budget = ctx.runtime->ram_budget();
  {
    std::unique_ptr<Iterator> it = testing::Build(pipeline)->MakeIterator(ctx);
    Result<std::optional<Element>> first = it->GetNext();
    EXPECT_EQ(first.status().code(), StatusCode::kResourceExhausted) << first.status();
    EXPECT_NE(first.status().message().find(message), std::string::npos) << first.status();
    EXPECT_LE(budget.peak(), kBudget);
  }
  EXPECT_EQ(budget.used(), 0);
}

TEST(BufferedBytesTest, WindowOfEmptyElementsOrErrorsIsExhaustedAtTheBudget) {
  ExpectHoldingIsExhausted(EmptyElements(100'000).Window({.size = kHuge, .shift = 1}),
                           "window: holding an element of ");
  ExpectHoldingIsExhausted(Errors(100'000).Window({.size = kHuge, .shift = 1}), "window: holding an input error of ");
}

TEST(BufferedBytesTest, GroupOfEmptyElementsIsExhaustedAtTheBudget) {
  const ElementFunctionPtr key_zero = MakeLambdaFunction(
      [](Element) -> Result<Element> { return Element{Tensor::Scalar<int64_t>(0)}; }, {.output_spec = kInt64Scalar});
  ExpectHoldingIsExhausted(EmptyElements(100'000).GroupByWindow({.key_fn = key_zero, .window_size = kHuge},
                                                                [](Pipeline rows) { return rows; }),
                           "group_by_window: holding an element of ");
}

TEST(BufferedBytesTest, BucketOfEmptyElementsIsExhaustedAtTheBudget) {
  ExpectHoldingIsExhausted(EmptyElements(100'000).BucketBySequenceLength({.bucket_batch_sizes = {kHuge}}),
                           "bucket_by_sequence_length: holding an element of ");
}

}  // namespace
}  // namespace sluice

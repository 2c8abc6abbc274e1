#include "sluice/dataset/shuffle_dataset.h"

#include <algorithm>

#include "contract.h"
#include "sluice/tests/dataset/chunk_views.h"

namespace sluice {
namespace {

using testing::Collect;
using testing::Values;

std::vector<int64_t> Sorted(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}
std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

// Elements wait in the buffer unpinned: a record viewing a chunk 6500 times
// its size is copied out, so the buffer doesn't hold chunks alive.
TEST(ShuffleDatasetTest, BufferedRecordsDontPinTheirChunks) {
  std::vector<std::string> seen;
  const DatasetPtr dataset = testing::Build(testing::ViewsOfOneChunk(26).Shuffle({.buffer_size = 8, .seed = 1}));
  for (const Element& e : Collect(dataset)) {
    EXPECT_EQ(e[0].BackingBytes(), 0u);
    seen.emplace_back(e[0].scalar<TString>());
  }
  std::sort(seen.begin(), seen.end());
  ASSERT_EQ(seen.size(), 26u);
  EXPECT_EQ(seen[0], "aaaaaaaaaa");
  EXPECT_EQ(seen[25], "zzzzzzzzzz");
}

TEST(ShuffleDatasetTest, IsAPermutationWithSpecAndCardinalityOfItsInput) {
  auto pipeline = Pipeline::Range(100).Shuffle({.buffer_size = 10, .seed = 7});
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->cardinality(), 100);
  EXPECT_EQ(dataset->element_spec(), (*MakeRangeDataset({.stop = 1}))->element_spec());
  std::vector<int64_t> order = Values(Collect(dataset));
  EXPECT_EQ(Sorted(order), Iota(100));
  EXPECT_NE(order, Iota(100));
}

TEST(ShuffleDatasetTest, BufferOfOneKeepsOrder) {
  testing::ExpectProduces(Pipeline::Range(5).Shuffle({.buffer_size = 1}), testing::IntRange(0, 5));
}

// Refill-then-draw: the k-th output is drawn from the first buffer_size + k
// input elements only.
TEST(ShuffleDatasetTest, DrawsOnlyFromTheFilledBuffer) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    std::vector<int64_t> order = Values(Collect(Pipeline::Range(50).Shuffle({.buffer_size = 3, .seed = seed})));
    for (size_t k = 0; k < order.size(); ++k) EXPECT_LT(order[k], static_cast<int64_t>(3 + k));
  }
}

TEST(ShuffleDatasetTest, SeedMakesOrderReproducibleAcrossDatasets) {
  auto a = Values(Collect(Pipeline::Range(50).Shuffle({.buffer_size = 50, .seed = 42})));
  auto b = Values(Collect(Pipeline::Range(50).Shuffle({.buffer_size = 50, .seed = 42})));
  EXPECT_EQ(a, b);
}

TEST(ShuffleDatasetTest, ReshuffleEachIterationGivesNewOrderPerIterator) {
  DatasetPtr reshuffled = testing::Build(Pipeline::Range(50).Shuffle({.buffer_size = 50, .seed = 1}));
  EXPECT_NE(Values(Collect(reshuffled)), Values(Collect(reshuffled)));
  DatasetPtr fixed =
      testing::Build(Pipeline::Range(50).Shuffle({.buffer_size = 50, .seed = 1, .reshuffle_each_iteration = false}));
  EXPECT_EQ(Values(Collect(fixed)), Values(Collect(fixed)));
  // Without a seed, a fixed order is still the same on every iteration.
  DatasetPtr unseeded =
      testing::Build(Pipeline::Range(50).Shuffle({.buffer_size = 50, .reshuffle_each_iteration = false}));
  EXPECT_EQ(Values(Collect(unseeded)), Values(Collect(unseeded)));
}

// tf.data: shuffle before repeat shuffles within each epoch and never mixes
// epochs; each epoch gets its own order.
TEST(ShuffleDatasetTest, ShuffleThenRepeatNeverMixesEpochs) {
  std::vector<int64_t> order = Values(Collect(Pipeline::Range(10).Shuffle({.buffer_size = 4, .seed = 3}).Repeat(3)));
  ASSERT_EQ(order.size(), 30u);
  std::vector<std::vector<int64_t>> epochs;
  for (int e = 0; e < 3; ++e) {
    std::vector<int64_t> epoch(order.begin() + 10 * e, order.begin() + 10 * (e + 1));
    EXPECT_EQ(Sorted(epoch), Iota(10)) << "epoch " << e;
    epochs.push_back(epoch);
  }
  EXPECT_FALSE(epochs[0] == epochs[1] && epochs[1] == epochs[2]);
}

TEST(ShuffleDatasetTest, ErrorWhileFillingIsReturnedAndIterationContinues) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(6, {2}).Shuffle({.buffer_size = 3, .seed = 1})));
  int errors = 0;
  std::vector<int64_t> values;
  for (const auto& r : results) {
    if (!r.ok()) {
      ++errors;
      testing::ExpectFailedElement(r, 2);
    } else {
      values.push_back((*r)[0].scalar<int64_t>());
    }
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(Sorted(values), (std::vector<int64_t>{0, 1, 3, 4, 5}));
}

// A buffer that alone passes the RAM budget is an error, not unbounded
// memory: 10^12 buffered elements of an endless input under 1 MiB.
TEST(ShuffleDatasetTest, ABufferThatPassesTheRamBudgetIsResourceExhausted) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(INT64_MAX).Shuffle({.buffer_size = 1'000'000'000'000}));
  IteratorContext ctx;
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 1 << 20});
  auto it = dataset->MakeIterator(ctx);
  Result<std::optional<Element>> next = it->GetNext();
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().code(), StatusCode::kResourceExhausted) << next.status();
  EXPECT_NE(next.status().message().find("shuffle: a buffer of buffer_size=1000000000000 elements passes the RAM "
                                         "budget (1048576 bytes)"),
            std::string::npos)
      << next.status();
  EXPECT_LE(ctx.runtime->ram_budget().used(), 1 << 20);
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(ShuffleDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Shuffle({.buffer_size = 0}), StatusCode::kInvalidArgument,
                       "buffer_size must be greater than zero");
  testing::ExpectError(Pipeline::Range(3).Shuffle({.buffer_size = -5}), StatusCode::kInvalidArgument,
                       "buffer_size must be greater than zero");
}

TEST(ShuffleDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(1000).Shuffle({.buffer_size = 100})), 3);
}

}  // namespace
}  // namespace sluice

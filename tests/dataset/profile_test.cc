// What the base class records per iterator when a traversal is profiled:
// node identity (DescribeGraph order, parents), counts, self time, and that
// profiling leaves the elements and checkpointing alone.
#include "sluice/dataset/profile.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "sluice/dataset/iterator_state.h"
#include "sluice/dataset/pipeline.h"
#include "sluice/tests/dataset/contract.h"

namespace sluice {
namespace {

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

std::vector<int64_t> ReadAll(Iterator& it) {
  std::vector<int64_t> values;
  while (true) {
    auto next = it.GetNext();
    EXPECT_TRUE(next.ok()) << next.status();
    if (!next.ok() || !next->has_value()) break;
    for (int64_t i = 0; i < (**next)[0].NumElements(); ++i) values.push_back((**next)[0].data<int64_t>()[i]);
  }
  return values;
}

TEST(ProfileTest, NodesFollowTheGraphWithParents) {
  auto dataset = testing::Build(Pipeline::Range(10)
                                    .Map([](Element e) -> Result<Element> {
                                      const auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(500);
                                      while (std::chrono::steady_clock::now() < end) {
                                      }
                                      return e;
                                    })
                                    .Batch({.batch_size = 4})
                                    .Prefetch(2));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  auto it = dataset->MakeIterator(ctx);
  EXPECT_EQ(ReadAll(*it).size(), 10u);
  it.reset();
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 4u);
  const std::vector<std::string> names = {"prefetch", "batch", "map", "range"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s.nodes[i].index, i);
    EXPECT_EQ(s.nodes[i].op_name, names[i]);
    EXPECT_EQ(s.nodes[i].parent, i - 1);
    EXPECT_EQ(s.nodes[i].depth, i);
  }
  EXPECT_TRUE(s.nodes[0].async);
  EXPECT_TRUE(s.nodes[3].source);
  EXPECT_EQ(s.nodes[0].elements, 3);
  EXPECT_EQ(s.nodes[0].calls, 4);  // 3 batches and the end
  EXPECT_EQ(s.nodes[2].elements, 10);
  EXPECT_EQ(s.nodes[3].elements, 10);
  EXPECT_EQ(s.nodes[3].bytes, 80);
  EXPECT_EQ(s.nodes[0].self_ns, 0);  // async: its consumer waited
  EXPECT_GT(s.nodes[0].consumer_wait_ns, 0);
  EXPECT_GT(s.nodes[0].buffer_samples, 0);
  // The map's spin is its own time, not its input's or its consumer's.
  EXPECT_GE(s.nodes[2].self_ns, 10 * 400'000);
  EXPECT_GE(s.nodes[1].input_ns, s.nodes[2].self_ns);
  EXPECT_LT(s.nodes[1].self_ns, s.nodes[2].self_ns);
  EXPECT_LE(s.nodes[3].self_ns, s.nodes[3].elapsed_ns);
}

TEST(ProfileTest, EpochsSubDatasetsAndTraversalsAddToOneNode) {
  auto dataset = testing::Build(
      Pipeline::Range({.start = 1, .stop = 4})
          .Interleave([](const Element& e) { return Pipeline::Range(e[0].scalar<int64_t>()).Build(); }, kInt64Scalar,
                      {.cycle_length = 2, .block_length = 1})
          .Repeat(2));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  for (int traversal = 0; traversal < 2; ++traversal) {
    auto it = dataset->MakeIterator(ctx);
    EXPECT_EQ(ReadAll(*it).size(), 12u);  // (0 + 0,1 + 0,1,2) twice
  }
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 4u);  // repeat, interleave, its input range, its sub-datasets' range
  EXPECT_EQ(s.nodes[0].op_name, "repeat");
  EXPECT_EQ(s.nodes[3].op_name, "range");
  EXPECT_EQ(s.nodes[3].parent, 1);
  EXPECT_EQ(s.nodes[0].elements, 24);
  EXPECT_EQ(s.nodes[3].elements, 24);
}

// Past a node's first kAlwaysTimedCalls calls, one in kSamplePeriod is
// timed: counts stay exact, and times and bytes are unbiased estimates.
TEST(ProfileTest, LongStreamsAreSampledWithExactCountsAndEstimatedTimes) {
  constexpr int64_t kElements = 24 * ProfileNode::kAlwaysTimedCalls;
  constexpr auto kSpin = std::chrono::microseconds(2);
  auto dataset = testing::Build(Pipeline::Range(kElements).Map([kSpin](Element e) -> Result<Element> {
    const auto end = std::chrono::steady_clock::now() + kSpin;
    while (std::chrono::steady_clock::now() < end) {
    }
    return e;
  }));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  auto it = dataset->MakeIterator(ctx);
  EXPECT_EQ(ReadAll(*it).size(), static_cast<size_t>(kElements));
  it.reset();
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 2u);
  const NodeSnapshot& map = s.nodes[0];
  const NodeSnapshot& range = s.nodes[1];
  EXPECT_EQ(map.calls, kElements + 1);
  EXPECT_EQ(map.elements, kElements);
  EXPECT_EQ(range.elements, kElements);
  // ~4,500 timed calls: the estimates are within a few percent.
  EXPECT_NEAR(range.bytes, 8 * kElements, 0.1 * 8 * kElements);
  EXPECT_GE(map.self_ns, 0.8 * kElements * std::chrono::nanoseconds(kSpin).count());
  // Its own time and its input's add up to its time, measured in the same calls.
  EXPECT_EQ(map.input_ns + map.self_ns, map.elapsed_ns);
}

// A run counts as its rows whether its call was timed or not: from_slices
// hands batch runs of many rows, long past its node's always-timed calls.
TEST(ProfileTest, RunsCountTheirRowsPastTheSampledPart) {
  constexpr int64_t kBatch = 5;
  constexpr int64_t kElements = kBatch * 2 * ProfileNode::kAlwaysTimedCalls + 3;  // a short last run
  std::vector<int64_t> values(kElements);
  std::iota(values.begin(), values.end(), 0);
  auto dataset = testing::Build(Pipeline::FromSlices({{"x", Tensor::FromVector(values)}}).Batch({.batch_size = kBatch}));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  auto it = dataset->MakeIterator(ctx);
  EXPECT_EQ(ReadAll(*it), values);
  it.reset();
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 2u);
  const NodeSnapshot& batch = s.nodes[0];
  const NodeSnapshot& slices = s.nodes[1];
  EXPECT_EQ(batch.calls, kElements / kBatch + 2);  // full batches, the short one, the end
  EXPECT_EQ(batch.elements, kElements / kBatch + 1);
  // A run per batch, then the end twice: filling the short batch, and in batch's end.
  EXPECT_EQ(slices.calls, kElements / kBatch + 3);
  EXPECT_EQ(slices.elements, kElements);
  EXPECT_NEAR(slices.bytes, 8 * kElements, 0.1 * 8 * kElements);
}

// Each iterator counts on its own and its node sums them: two traversals
// read at once on two threads, one of them dropped mid-stream, a snapshot
// taken while they run; counts past the sampled part stay exact.
TEST(ProfileTest, CountsStayExactWhenIteratorsShareANodeAndOneEndsEarly) {
  constexpr int64_t kElements = 3 * ProfileNode::kAlwaysTimedCalls;
  constexpr int64_t kDropped = kElements / 2 + 7;  // elements read before its iterator is destroyed
  auto dataset = testing::Build(Pipeline::Range(kElements).Map([](Element e) -> Result<Element> { return e; }));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  auto whole = dataset->MakeIterator(ctx);
  auto dropped = dataset->MakeIterator(ctx);
  std::atomic<bool> done{false};
  std::thread reader([&] {
    EXPECT_EQ(ReadAll(*whole).size(), static_cast<size_t>(kElements));
    done = true;
  });
  for (int64_t i = 0; i < kDropped; ++i) ASSERT_TRUE(dropped->GetNext().ok());
  int64_t seen = 0;
  while (!done) {
    const ProfileSnapshot s = ctx.profile->Snapshot();
    EXPECT_EQ(s.nodes.size(), 2u);
    if (s.nodes.empty()) break;
    EXPECT_GE(s.nodes[0].calls, seen);
    EXPECT_LE(s.nodes[0].calls, kElements + 1 + kDropped);
    seen = s.nodes[0].calls;
  }
  reader.join();
  dropped.reset();
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 2u);
  for (const NodeSnapshot& node : s.nodes) {
    EXPECT_EQ(node.calls, kElements + 1 + kDropped) << node.op_name;
    EXPECT_EQ(node.elements, kElements + kDropped) << node.op_name;
  }
  EXPECT_NEAR(s.nodes[1].bytes, 8 * (kElements + kDropped), 0.1 * 8 * (kElements + kDropped));
  EXPECT_EQ(s.nodes[0].input_ns + s.nodes[0].self_ns, s.nodes[0].elapsed_ns);
  // Destroying the other iterator too changes nothing.
  whole.reset();
  EXPECT_EQ(ctx.profile->Snapshot().nodes[0].calls, kElements + 1 + kDropped);
}

// Many traversals of three elements each, as `sluice profile` makes of a
// short pipeline, far past the always-timed calls: the span is the whole
// run's, and the map's busy time near its true one.
TEST(ProfileTest, WallTimeAndSelfTimeOfManyShortTraversals) {
  constexpr int kTraversals = 3000;
  constexpr auto kSpin = std::chrono::microseconds(50);
  int64_t spun_ns = 0;
  auto dataset = testing::Build(Pipeline::Range(3).Map([&](Element e) -> Result<Element> {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < start + kSpin) {
    }
    spun_ns += std::chrono::nanoseconds(std::chrono::steady_clock::now() - start).count();
    return e;
  }));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < kTraversals; ++t) {
    auto it = dataset->MakeIterator(ctx);
    ASSERT_EQ(ReadAll(*it).size(), 3u);
  }
  const double true_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const ProfileSnapshot s = ctx.profile->Snapshot();
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].calls, 4 * kTraversals);
  const double wall_s = static_cast<double>(s.nodes[0].end_ns - s.nodes[0].start_ns) * 1e-9;
  EXPECT_LE(wall_s, true_wall_s);
  EXPECT_GE(wall_s, 0.95 * true_wall_s);
  // The map's time is estimated from ~30 sampled calls past the first
  // kAlwaysTimedCalls: loose bounds, for a loaded machine's preemptions
  // (IteratorProfileTest checks the sampling exactly).
  EXPECT_GT(s.nodes[0].elapsed_ns, 0.25 * spun_ns);
  EXPECT_LT(s.nodes[0].elapsed_ns, 4 * spun_ns);
}

TEST(ProfileTest, ElementsAndCheckpointsAreUnchangedWhenProfiled) {
  auto dataset = testing::Build(Pipeline::Range(20).Batch({.batch_size = 3}).Prefetch(2));
  IteratorContext ctx;
  ctx.profile = std::make_shared<Profile>();
  auto it = dataset->MakeIterator(ctx);
  ASSERT_TRUE(it->GetNext().ok());
  auto state = SaveIteratorState(*it);
  ASSERT_TRUE(state.ok()) << state.status();
  auto resumed = dataset->MakeIterator(ctx);
  ASSERT_TRUE(RestoreIteratorState(*resumed, *state).ok());
  std::vector<int64_t> expected;
  for (int64_t i = 3; i < 20; ++i) expected.push_back(i);
  EXPECT_EQ(ReadAll(*resumed), expected);
  EXPECT_EQ(ReadAll(*it), expected);
}

TEST(ProfileTest, OffByDefault) {
  IteratorContext ctx;
  EXPECT_EQ(ctx.profile, nullptr);
  auto it = testing::Build(Pipeline::Range(3))->MakeIterator(ctx);
  EXPECT_EQ(ReadAll(*it).size(), 3u);
}

}  // namespace
}  // namespace sluice

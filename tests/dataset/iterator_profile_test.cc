// IteratorProfile's choice of calls to time (every call of a node's first
// kAlwaysTimedCalls, then one per window of kSamplePeriod at a random
// offset, the windows running on across the node's iterators) and its
// counts, folded into the node when it ends.
#include "sluice/dataset/iterator_profile.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "sluice/dataset/pipeline.h"
#include "sluice/dataset/profile.h"
#include "sluice/tests/dataset/contract.h"

namespace sluice {
namespace {

constexpr int64_t kAlways = ProfileNode::kAlwaysTimedCalls;
constexpr int64_t kPeriod = ProfileNode::kSamplePeriod;

struct NodeFixture {
  std::shared_ptr<Profile> profile = std::make_shared<Profile>();
  DatasetPtr dataset = testing::Build(Pipeline::Range(1));
  ProfileNode* node = profile->AddNode(*dataset, nullptr, nullptr);

  NodeSnapshot Read() const { return profile->Snapshot().nodes.at(0); }
};

// An iterator's counters and their profile in the node, as Dataset::NewIterator pairs them.
struct Counted {
  explicit Counted(const NodeFixture& f) : profile(f.profile, f.node, &counters) {}
  CallCounters counters;
  IteratorProfile profile;
};

// One call of one element of 8 bytes taking 10 ns if timed, 4 of them in
// its inputs' calls, as Iterator::GetNext makes it; returns its weight (0
// if untimed).
int64_t Call(Counted& it) {
  if (!it.counters.TimeThisCall()) {
    it.counters.Count(1);
    return 0;
  }
  const int64_t weight = it.profile.BeginTimedCall();
  it.profile.EndTimedCall(weight, 100, 110, /*input_ns=*/4, 1, 8);
  return weight;
}

TEST(IteratorProfileTest, TimesTheFirstCallsThenOneAtARandomOffsetPerWindow) {
  NodeFixture f;
  auto it = std::make_unique<Counted>(f);
  for (int64_t i = 0; i < kAlways; ++i) ASSERT_EQ(Call(*it), 1) << "call " << i;
  constexpr int64_t kWindows = 4000;
  std::set<int64_t> offsets;
  for (int64_t w = 0; w < kWindows; ++w) {
    int64_t timed = 0;
    for (int64_t i = 0; i < kPeriod; ++i) {
      const int64_t weight = Call(*it);
      if (weight == 0) continue;
      EXPECT_EQ(weight, kPeriod);
      ++timed;
      offsets.insert(i);
    }
    ASSERT_EQ(timed, 1) << "window " << w;
  }
  EXPECT_EQ(offsets.size(), static_cast<size_t>(kPeriod));  // every offset drawn
  it.reset();
  // Each window's one timed call stands for the whole window.
  const NodeSnapshot s = f.Read();
  EXPECT_EQ(s.calls, kAlways + kWindows * kPeriod);
  EXPECT_EQ(s.elements, s.calls);
  EXPECT_EQ(s.bytes, 8 * s.calls);
  EXPECT_EQ(s.elapsed_ns, 10 * s.calls);
  EXPECT_EQ(s.self_ns, 6 * s.calls);
}

// Traversals of a few calls each (as `sluice profile` makes of a short
// pipeline) continue the node's windows: still one timed call per window
// of the node's calls, whatever address each iterator gets.
TEST(IteratorProfileTest, ShortIteratorsContinueTheNodesWindows) {
  NodeFixture f;
  {
    Counted first(f);
    for (int64_t i = 0; i < kAlways; ++i) Call(first);
  }
  constexpr int64_t kCallsEach = 4;
  constexpr int64_t kWindows = 500;
  int64_t timed = 0;
  for (int64_t n = 0; n < kWindows * kPeriod / kCallsEach; ++n) {
    Counted short_lived(f);
    for (int64_t i = 0; i < kCallsEach; ++i) timed += Call(short_lived) != 0;
  }
  EXPECT_EQ(timed, kWindows);
  const NodeSnapshot s = f.Read();
  EXPECT_EQ(s.calls, kAlways + kWindows * kPeriod);
  EXPECT_EQ(s.elapsed_ns, 10 * s.calls);  // unbiased: each window's timed call stands for it
}

TEST(IteratorProfileTest, ALaterIteratorOfTheNodeSamplesFromItsFirstCall) {
  NodeFixture f;
  {
    Counted first(f);
    for (int64_t i = 0; i < kAlways; ++i) Call(first);
  }
  Counted later(f);
  int64_t timed = 0;
  for (int64_t i = 0; i < kPeriod; ++i) timed += Call(later) != 0;
  EXPECT_EQ(timed, 1);
}

TEST(IteratorProfileTest, NodeSumsLiveIteratorsAndThoseEnded) {
  NodeFixture f;
  auto a = std::make_unique<Counted>(f);
  auto b = std::make_unique<Counted>(f);
  for (int i = 0; i < 3 * kAlways; ++i) Call(*a);
  for (int i = 0; i < 5; ++i) Call(*b);
  b->counters.Count(0);  // b's end of sequence
  EXPECT_EQ(f.Read().calls, 3 * kAlways + 6);
  EXPECT_EQ(f.Read().elements, 3 * kAlways + 5);
  b.reset();  // mid-stream of the node: its counts stay
  EXPECT_EQ(f.Read().calls, 3 * kAlways + 6);
  for (int i = 0; i < 7; ++i) Call(*a);
  a.reset();
  const NodeSnapshot s = f.Read();
  EXPECT_EQ(s.calls, 3 * kAlways + 13);
  EXPECT_EQ(s.elements, 3 * kAlways + 12);
}

}  // namespace
}  // namespace sluice

// Stress tests of the parallel ops (dataset/parallel_transform.h and the
// parallel interleave) for the sanitizer builds: errors on random elements,
// destruction at random points, nested interleaves of parallel maps. Each
// case is bounded (fixed sizes, short sleeps) so that a hang shows as a
// ctest timeout; TSan checks the locking, ASan the lifetimes and leaks.
#include "sluice/dataset/parallel_transform.h"

#include <algorithm>
#include <random>

#include "contract.h"

namespace sluice {
namespace {

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// Fails on elements whose hash hits `one_in`, after up to 100 us of work.
std::function<Result<Element>(Element)> FlakyIdentity(uint64_t seed, int one_in) {
  return [seed, one_in](Element e) -> Result<Element> {
    const uint64_t v = static_cast<uint64_t>(e[0].scalar<int64_t>());
    const uint64_t hash = (v + seed) * 0x9E3779B97F4A7C15ull;
    std::this_thread::sleep_for(std::chrono::microseconds((hash >> 33) % 100));
    if ((hash >> 40) % one_in == 0) return InvalidArgumentError("element ", v, " failed");
    return e;
  };
}

// range(x * 1000, x * 1000 + x % 5) through a flaky parallel map.
Pipeline NestedSource(int64_t x, uint64_t seed) {
  return Pipeline::Range({.start = x * 1000, .stop = x * 1000 + x % 5})
      .Map(FlakyIdentity(seed, 7), {}, {.num_parallel_calls = 2});
}

// interleave(parallel) of parallel maps, then a parallel map (and batch).
Pipeline Nested(uint64_t seed, Determinism determinism, bool batch = true) {
  Pipeline mapped = Pipeline::Range(24)
      .Map(FlakyIdentity(seed, 11), {}, {.num_parallel_calls = kAutotune, .deterministic = determinism})
      .Interleave([seed](const Element& e) { return NestedSource(e[0].scalar<int64_t>(), seed).Build(); },
                  kInt64Scalar,
                  {.cycle_length = 4, .block_length = 2, .num_parallel_calls = 3, .deterministic = determinism})
      .Map(FlakyIdentity(seed + 1, 13), {}, {.num_parallel_calls = 4, .deterministic = determinism});
  if (!batch) return mapped;
  return mapped.Batch({.batch_size = 3, .num_parallel_calls = 2, .deterministic = determinism}).Prefetch(kAutotune);
}

// The results of a traversal as strings, errors included, in order.
std::vector<std::string> Describe(const DatasetPtr& dataset) {
  std::vector<std::string> out;
  for (const Result<Element>& r : testing::CollectResults(dataset)) {
    out.push_back(r.ok() ? StrCat(*r) : r.status().ToString());
  }
  return out;
}

// Deterministic: the same results, errors included, on every traversal,
// equal to the all-sequential pipeline's; nondeterministic: the same
// multiset of results.
TEST(ParallelStressTest, NestedInterleaveOfParallelMapsWithRandomErrors) {
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE(StrCat("seed=", seed));
    const std::vector<std::string> first = Describe(testing::Build(Nested(seed, Determinism::kDeterministic)));
    EXPECT_GT(first.size(), 5u);
    EXPECT_EQ(Describe(testing::Build(Nested(seed, Determinism::kDeterministic))), first);
    std::vector<std::string> ordered = Describe(testing::Build(Nested(seed, Determinism::kDeterministic, false)));
    std::vector<std::string> unordered =
        Describe(testing::Build(Nested(seed, Determinism::kNondeterministic, false)));
    std::sort(ordered.begin(), ordered.end());
    std::sort(unordered.begin(), unordered.end());
    EXPECT_EQ(unordered, ordered);
  }
}

// Destroying iterators at random points, with work in flight at every level.
TEST(ParallelStressTest, DestructionAtRandomPoints) {
  std::mt19937 random(7);
  for (int round = 0; round < 20; ++round) {
    const Determinism determinism = round % 2 == 0 ? Determinism::kDeterministic : Determinism::kNondeterministic;
    DatasetPtr dataset = testing::Build(Nested(round, determinism).Repeat());
    auto it = dataset->MakeIterator();
    const int consume = static_cast<int>(random() % 20);
    for (int i = 0; i < consume; ++i) (void)it->GetNext();
    const auto start = std::chrono::steady_clock::now();
    it.reset();
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  }
}

// Many short traversals at once from several threads, sharing nothing but
// the datasets (immutable) and, per pair, one runtime.
TEST(ParallelStressTest, ConcurrentTraversalsShareARuntime) {
  DatasetPtr dataset = testing::Build(Nested(5, Determinism::kDeterministic));
  const std::vector<std::string> expected = Describe(dataset);
  auto runtime = Runtime::Create({.cpu_budget = 2});
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 3; ++i) {
        IteratorContext ctx;
        ctx.runtime = runtime;
        auto it = dataset->MakeIterator(ctx);
        std::vector<std::string> got;
        for (const Result<Element>& r : testing::CollectResults(*it)) {
          got.push_back(r.ok() ? StrCat(*r) : r.status().ToString());
        }
        if (got != expected) ++mismatches;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(runtime->ram_budget().used(), 0);
}

}  // namespace
}  // namespace sluice

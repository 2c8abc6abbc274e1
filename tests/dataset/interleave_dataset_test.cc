#include "sluice/dataset/interleave_dataset.h"

#include "contract.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <map>
#include <random>

namespace sluice {
namespace {

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// x -> from_tensors(x).repeat(6): tf.data's documented interleave input.
Result<DatasetPtr> SixCopies(const Element& e) { return Pipeline::FromTensors({{"", e[0]}}).Repeat(6).Build(); }

// tf.data's documented example:
//   range(1, 6).interleave(lambda x: from_tensors(x).repeat(6), cycle_length=2, block_length=4)
// Every parallelism, sequential (0) included: a deterministic parallel
// interleave has exactly the sequential order.
const std::vector<int64_t> kParallelisms = {0, 1, 2, 3, 4, 5, 6, 7, 8, kAutotune};

TEST(InterleaveDatasetTest, DocumentedCycleAndBlockOrder) {
  for (int64_t parallelism : {0, 1, 2, static_cast<int>(kAutotune)}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    auto pipeline = Pipeline::Range({.start = 1, .stop = 6})
                        .Interleave(SixCopies, kInt64Scalar,
                                    {.cycle_length = 2, .block_length = 4, .num_parallel_calls = parallelism});
    testing::ExpectProduces(pipeline, testing::Ints({1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3,
                                                     3, 4, 4, 5, 5, 5, 5, 5, 5}));
  }
}

// The eager reference: tf.data's sequential algorithm written out over vectors.
std::vector<int64_t> ReferenceInterleave(const std::vector<std::vector<int64_t>>& inputs, size_t cycle, int64_t block) {
  std::vector<int64_t> out;
  std::vector<std::optional<std::pair<size_t, size_t>>> slots(cycle);  // (input index, position)
  size_t next_input = 0, cursor = 0;
  int64_t in_block = 0;
  auto open = [&] { return std::count_if(slots.begin(), slots.end(), [](auto& s) { return s.has_value(); }); };
  while (next_input < inputs.size() || open() > 0) {
    auto& slot = slots[cursor];
    if (slot) {
      if (slot->second < inputs[slot->first].size()) {
        out.push_back(inputs[slot->first][slot->second++]);
        if (++in_block == block) in_block = 0, cursor = (cursor + 1) % cycle;
      } else {
        slot.reset();
        in_block = 0, cursor = (cursor + 1) % cycle;
      }
    } else if (next_input < inputs.size()) {
      slot = std::make_pair(next_input++, size_t{0});
    } else {
      in_block = 0, cursor = (cursor + 1) % cycle;
    }
  }
  return out;
}

// x -> range(10 * x, 10 * x + x % 4): sub-datasets of lengths 0..3, including empty ones.
Result<DatasetPtr> Uneven(const Element& e) {
  const int64_t x = e[0].scalar<int64_t>();
  return Pipeline::Range({.start = 10 * x, .stop = 10 * x + x % 4}).Build();
}

// The same, each element after a pseudo-random sleep of 0-200 us, so that
// parallel workers finish out of order.
Result<DatasetPtr> JitteredUneven(const Element& e) {
  const int64_t x = e[0].scalar<int64_t>();
  return Pipeline::Range({.start = 10 * x, .stop = 10 * x + x % 4})
      .Map([](Element v) -> Result<Element> {
        std::this_thread::sleep_for(std::chrono::microseconds((v[0].scalar<int64_t>() * 7919) % 200));
        return v;
      })
      .Build();
}

TEST(InterleaveDatasetTest, MatchesTheReferenceForUnevenAndEmptySubDatasets) {
  std::vector<std::vector<int64_t>> inputs;
  for (int64_t x = 0; x < 11; ++x) {
    std::vector<int64_t> sub;
    for (int64_t v = 10 * x; v < 10 * x + x % 4; ++v) sub.push_back(v);
    inputs.push_back(sub);
  }
  for (int64_t cycle : {1, 2, 3, 5, 16}) {
    for (int64_t block : {1, 2, 3}) {
      for (int64_t parallelism : kParallelisms) {
        if (parallelism > cycle) continue;
        auto pipeline = Pipeline::Range(11).Interleave(
            parallelism == 0 ? Uneven : JitteredUneven, kInt64Scalar,
            {.cycle_length = cycle, .block_length = block, .num_parallel_calls = parallelism});
        EXPECT_EQ(testing::Values(testing::Collect(pipeline)), ReferenceInterleave(inputs, cycle, block))
            << "cycle_length=" << cycle << " block_length=" << block << " num_parallel_calls=" << parallelism;
      }
    }
  }
}

// Without determinism, a slow sub-dataset doesn't hold up the others, and
// the output is a permutation of the sequential one.
TEST(InterleaveDatasetTest, NondeterministicLetsFastDatasetsPassASlowOne) {
  auto slow_zero = [](const Element& e) -> Result<DatasetPtr> {
    const int64_t x = e[0].scalar<int64_t>();
    return Pipeline::Range({.start = 10 * x, .stop = 10 * x + 3})
        .Map([x](Element v) -> Result<Element> {
          if (x == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          return v;
        })
        .Build();
  };
  for (int64_t parallelism : {2, 4}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    auto pipeline = Pipeline::Range(8).Interleave(slow_zero, kInt64Scalar,
                                                  {.cycle_length = 4,
                                                   .num_parallel_calls = parallelism,
                                                   .deterministic = Determinism::kNondeterministic});
    std::vector<int64_t> values = testing::Values(testing::Collect(pipeline));
    EXPECT_NE(values.front(), 0);
    std::sort(values.begin(), values.end());
    std::vector<int64_t> expected;
    for (int64_t x = 0; x < 8; ++x) {
      for (int64_t v = 10 * x; v < 10 * x + 3; ++v) expected.push_back(v);
    }
    EXPECT_EQ(values, expected);
  }
}

// Each worker runs a parallel map per sub-dataset: nested parallelism on
// the one CPU pool, still in the sequential order.
TEST(InterleaveDatasetTest, NestedParallelMapsKeepTheOrder) {
  auto mapped = [](const Element& e) -> Result<DatasetPtr> {
    const int64_t x = e[0].scalar<int64_t>();
    return Pipeline::Range({.start = 100 * x, .stop = 100 * x + 20})
        .Map([](Element v) -> Result<Element> { return v; }, {}, {.num_parallel_calls = 3})
        .Build();
  };
  auto sequential = Pipeline::Range(6).Interleave(mapped, kInt64Scalar, {.cycle_length = 3, .block_length = 2});
  auto parallel = Pipeline::Range(6).Interleave(mapped, kInt64Scalar,
                                                {.cycle_length = 3, .block_length = 2, .num_parallel_calls = 3});
  EXPECT_EQ(testing::Values(testing::Collect(parallel)), testing::Values(testing::Collect(sequential)));
}

TEST(InterleaveDatasetTest, CycleLengthOneIsFlatMap) {
  auto pipeline = Pipeline::Range(4).Interleave(Uneven, kInt64Scalar, {.cycle_length = 1});
  testing::ExpectProduces(pipeline, testing::Ints({10, 20, 21, 30, 31, 32}));
}

TEST(InterleaveDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(Pipeline::Range(4).Interleave(Uneven, kInt64Scalar, {.cycle_length = 2}));
  EXPECT_EQ(dataset->element_spec(), kInt64Scalar);
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(testing::Build(Pipeline::Range(0).Interleave(Uneven, kInt64Scalar, {.cycle_length = 2}))->cardinality(), 0);
}

TEST(InterleaveDatasetTest, ErrorsFromInputFunctionAndSubIteratorsArePerElement) {
  for (int64_t parallelism : {0, 1, static_cast<int>(kAutotune)}) {
  SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
  auto pipeline = testing::FailingRange(4, {1}).Interleave(
      [](const Element& e) -> Result<DatasetPtr> {
        const int64_t x = e[0].scalar<int64_t>();
        if (x == 2) return InvalidArgumentError("element 2 failed");
        return testing::FailingRange(3, {x == 3 ? 1 : 99}).Build();
      },
      kInt64Scalar, {.cycle_length = 1, .num_parallel_calls = parallelism});
  auto results = testing::CollectResults(testing::Build(pipeline));
  // x=0: 0 1 2 | x=1: error from the input | x=2: error from the function | x=3: 0, error, 2
  ASSERT_EQ(results.size(), 8u);
  EXPECT_EQ(testing::Values({*results[0], *results[1], *results[2]}), (std::vector<int64_t>{0, 1, 2}));
  testing::ExpectFailedElement(results[3], 1);
  testing::ExpectFailedElement(results[4], 2);
  EXPECT_EQ((*results[5])[0].scalar<int64_t>(), 0);
  testing::ExpectFailedElement(results[6], 1);
  EXPECT_EQ((*results[7])[0].scalar<int64_t>(), 2);
  }
}

// An error from a dataset's iterator doesn't use up a turn of its block, at
// every parallelism: range(1, 3).interleave(x -> from_slices([10x, 10x+1])
// .map(fails on 10), cycle_length=2, block_length=1) is ERR 11 20 21.
TEST(InterleaveDatasetTest, AnErrorDoesNotUseATurnOfTheBlock) {
  for (int64_t parallelism : {0, 1, 2, static_cast<int>(kAutotune)}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    auto pipeline = Pipeline::Range({.start = 1, .stop = 3})
                        .Interleave(
                            [](const Element& e) {
                              const int64_t x = e[0].scalar<int64_t>();
                              return Pipeline::FromSlices({{"", testing::Vec({10 * x, 10 * x + 1})}})
                                  .Map([](Element v) -> Result<Element> {
                                    if (v[0].scalar<int64_t>() == 10) return InvalidArgumentError("element 10 failed");
                                    return v;
                                  })
                                  .Build();
                            },
                            kInt64Scalar, {.cycle_length = 2, .block_length = 1, .num_parallel_calls = parallelism});
    auto results = testing::CollectResults(testing::Build(pipeline));
    ASSERT_EQ(results.size(), 4u);
    testing::ExpectFailedElement(results[0], 10);
    EXPECT_EQ(testing::Values({*results[1], *results[2], *results[3]}), (std::vector<int64_t>{11, 20, 21}));
  }
}

// One case of the property test below: a random interleave over small,
// uneven inputs with errors from the input, the function and the datasets.
struct RandomCase {
  std::vector<std::vector<int64_t>> inputs;  // the values of input element x's dataset
  std::set<int64_t> failing_inputs;          // input elements that are errors
  std::set<int64_t> failing_opens;           // input elements whose function fails
  std::set<int64_t> failing_values;          // dataset values that are errors
  int64_t cycle_length = 1;
  int64_t block_length = 1;
  bool jitter = false;  // elements sleep 0-60 us, so workers finish out of order

  std::string Describe() const {
    std::string text = StrCat("cycle_length=", cycle_length, " block_length=", block_length, " jitter=", jitter,
                              " inputs=[");
    for (size_t x = 0; x < inputs.size(); ++x) {
      text += StrCat(x == 0 ? "" : " ", "[");
      for (size_t i = 0; i < inputs[x].size(); ++i) text += StrCat(i == 0 ? "" : ",", inputs[x][i]);
      text += "]";
    }
    text += "] failing inputs/opens/values=";
    for (const auto* set : {&failing_inputs, &failing_opens, &failing_values}) {
      text += "{";
      for (int64_t v : *set) text += StrCat(v, ",");
      text += "}";
    }
    return text;
  }
};

RandomCase MakeRandomCase(std::mt19937_64& rng) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  RandomCase c;
  const int64_t n = uniform(0, 7);
  for (int64_t x = 0; x < n; ++x) {
    std::vector<int64_t> values;
    const int64_t length = uniform(0, 2) == 0 ? 0 : uniform(1, 6);
    for (int64_t i = 0; i < length; ++i) {
      values.push_back(100 * x + i);
      if (uniform(0, 15) == 0) c.failing_values.insert(100 * x + i);
    }
    c.inputs.push_back(values);
    if (uniform(0, 11) == 0) c.failing_inputs.insert(x);
    if (uniform(0, 11) == 0) c.failing_opens.insert(x);
  }
  c.cycle_length = uniform(1, 5);
  c.block_length = uniform(1, 3);
  c.jitter = uniform(0, 1) == 1;
  return c;
}

Pipeline RandomCasePipeline(const RandomCase& c, int64_t parallelism, Determinism determinism) {
  auto sleep_for = [jitter = c.jitter](int64_t v) {
    if (jitter) std::this_thread::sleep_for(std::chrono::microseconds((v * 7919) % 60));
  };
  auto fn = [c, sleep_for](const Element& e) -> Result<DatasetPtr> {
    const int64_t x = e[0].scalar<int64_t>();
    if (c.failing_opens.count(x)) return InvalidArgumentError("element ", 1000 + x, " failed");
    return Pipeline::FromSlices({{"", testing::Vec(c.inputs[x])}})
        .Map([c, sleep_for](Element v) -> Result<Element> {
          const int64_t value = v[0].scalar<int64_t>();
          sleep_for(value);
          if (c.failing_values.count(value)) return InvalidArgumentError("element ", value, " failed");
          return v;
        })
        .Build();
  };
  return testing::FailingRange(static_cast<int64_t>(c.inputs.size()), c.failing_inputs)
      .Interleave(fn, kInt64Scalar,
                  {.cycle_length = c.cycle_length,
                   .block_length = c.block_length,
                   .num_parallel_calls = parallelism,
                   .deterministic = determinism});
}

// Each result as text ("v" or "error: message"), within a watchdog: a
// traversal that doesn't end in 60 s ends the test binary, naming the case
// (a hung iterator can't be destroyed, so the test can't go on).
std::vector<std::string> TraverseWithWatchdog(const Pipeline& pipeline, const std::string& description) {
  auto traversal = std::async(std::launch::async, [&pipeline] {
    std::vector<std::string> out;
    for (const Result<Element>& result : testing::CollectResults(testing::Build(pipeline), 1000)) {
      out.push_back(result.ok() ? std::to_string((*result)[0].scalar<int64_t>())
                                : StrCat("error: ", result.status().message()));
    }
    return out;
  });
  if (traversal.wait_for(std::chrono::seconds(60)) != std::future_status::ready) {
    std::fprintf(stderr, "interleave traversal did not end within 60 s: %s\n", description.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return traversal.get();
}

// For many small random inputs, cycle and block lengths, parallelism 1..5
// and autotune, in both orders: every traversal ends, a deterministic one
// gives exactly the sequential op's results (errors included, in place) and
// a nondeterministic one the same multiset.
TEST(InterleaveDatasetTest, RandomInterleavesEndAndMatchTheSequentialOp) {
  std::mt19937_64 rng(20261201);
  for (int trial = 0; trial < 300; ++trial) {
    const RandomCase c = MakeRandomCase(rng);
    const std::string description = c.Describe();
    SCOPED_TRACE(description);
    const std::vector<std::string> expected =
        TraverseWithWatchdog(RandomCasePipeline(c, 0, Determinism::kDefault), description);
    std::multiset<std::string> expected_set(expected.begin(), expected.end());
    std::vector<int64_t> parallelisms = {kAutotune};
    for (int64_t p = 1; p <= c.cycle_length; ++p) parallelisms.push_back(p);
    for (int64_t parallelism : parallelisms) {
      for (Determinism determinism : {Determinism::kDeterministic, Determinism::kNondeterministic}) {
        const bool deterministic = determinism == Determinism::kDeterministic;
        const std::string label = StrCat(description, " num_parallel_calls=", parallelism,
                                         deterministic ? " deterministic" : " nondeterministic");
        std::vector<std::string> actual =
            TraverseWithWatchdog(RandomCasePipeline(c, parallelism, determinism), label);
        if (deterministic) {
          EXPECT_EQ(actual, expected) << label;
        } else {
          EXPECT_EQ(std::multiset<std::string>(actual.begin(), actual.end()), expected_set) << label;
        }
      }
    }
  }
}

// The hang's smallest form: a cycle of one slot, nondeterministic, over
// from_slices([3, 0, 2, 4, 1]) -> range(x), many times over.
TEST(InterleaveDatasetTest, NondeterministicCycleOfOneEndsEveryTraversal) {
  auto pipeline = Pipeline::FromSlices({{"", testing::Vec({3, 0, 2, 4, 1})}})
                      .Interleave([](const Element& e) { return Pipeline::Range(e[0].scalar<int64_t>()).Build(); },
                                  kInt64Scalar,
                                  {.cycle_length = 1,
                                   .num_parallel_calls = 1,
                                   .deterministic = Determinism::kNondeterministic});
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::string> values = TraverseWithWatchdog(pipeline, StrCat("trial ", trial));
    EXPECT_EQ(values.size(), 10u);
  }
}

TEST(InterleaveDatasetTest, ADatasetWithTheWrongSpecIsAnError) {
  auto pipeline = Pipeline::Range(2).Interleave(
      [](const Element&) { return Pipeline::Range({.stop = 2, .dtype = DType::kFloat32}).Build(); }, kInt64Scalar,
      {.cycle_length = 1});
  auto results = testing::CollectResults(testing::Build(pipeline));
  ASSERT_FALSE(results.empty());
  EXPECT_NE(results[0].status().message().find("declared spec"), std::string::npos) << results[0].status();
}

TEST(InterleaveDatasetTest, InvalidArguments) {
  testing::ExpectError(Pipeline::Range(3).Interleave(Uneven, kInt64Scalar, {.cycle_length = 0}),
                       StatusCode::kInvalidArgument, "cycle_length must be greater than zero");
  testing::ExpectError(Pipeline::Range(3).Interleave(Uneven, kInt64Scalar, {.cycle_length = 2, .block_length = 0}),
                       StatusCode::kInvalidArgument, "block_length must be greater than zero");
  testing::ExpectError(
      Pipeline::Range(3).Interleave(Uneven, kInt64Scalar, {.cycle_length = 2, .num_parallel_calls = -3}),
      StatusCode::kInvalidArgument, "num_parallel_calls must be >= 1, 0 (sequential) or -1 (autotune), got -3");
  testing::ExpectError(
      Pipeline::Range(3).Interleave(Uneven, kInt64Scalar, {.cycle_length = 2, .num_parallel_calls = 3}),
      StatusCode::kInvalidArgument, "num_parallel_calls must be less than or equal to cycle_length (got 3 > 2)");
  testing::ExpectError(Pipeline::Range(3).Interleave(Uneven, kInt64Scalar, {.cycle_length = 1'000'000'000}),
                       StatusCode::kInvalidArgument, "cycle_length must be at most 65536 (got 1000000000)");
  // With cycle_length kAutotune, num_parallel_calls is capped at the core count.
  EXPECT_EQ(testing::Values(testing::Collect(Pipeline::Range(4).Interleave(
                Uneven, kInt64Scalar, {.cycle_length = kAutotune, .num_parallel_calls = 64}))),
            testing::Values(testing::Collect(
                Pipeline::Range(4).Interleave(Uneven, kInt64Scalar, {.cycle_length = kAutotune}))));
}

// A cycle far longer than the input keeps only as many slots as the input
// has elements: the order of a 4-slot cycle, without a slot per cycle_length.
TEST(InterleaveDatasetTest, ACycleLongerThanTheInputKeepsOneSlotPerInputElement) {
  for (int64_t parallelism : {0, 1, 4, static_cast<int>(kAutotune)}) {
    SCOPED_TRACE(StrCat("num_parallel_calls=", parallelism));
    auto pipeline = Pipeline::Range(4).Interleave(
        Uneven, kInt64Scalar, {.cycle_length = kMaxInterleaveCycleLength, .num_parallel_calls = parallelism});
    testing::ExpectProduces(pipeline, testing::Ints({10, 20, 30, 21, 31, 32}));
  }
}

TEST(InterleaveDatasetTest, EarlyDestructionWithPrefetchingSubIterators) {
  auto pipeline = Pipeline::Range(100).Interleave(
      [](const Element& e) { return Pipeline::Range(1000).Prefetch(2).Build(); }, kInt64Scalar, {.cycle_length = 4});
  testing::ExpectEarlyDestructionIsClean(testing::Build(pipeline), 10);
  auto parallel = Pipeline::Range(100).Interleave(
      [](const Element& e) {
        return Pipeline::Range(1000)
            .Map([](Element v) -> Result<Element> {
              std::this_thread::sleep_for(std::chrono::milliseconds(2));
              return v;
            }, {}, {.num_parallel_calls = 2})
            .Prefetch(2)
            .Build();
      },
      kInt64Scalar, {.cycle_length = 4, .num_parallel_calls = 4});
  testing::ExpectEarlyDestructionIsClean(testing::Build(parallel), 10);
}

}  // namespace
}  // namespace sluice

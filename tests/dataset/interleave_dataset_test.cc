#include "dataset/interleave_dataset.h"

#include "contract.h"

#include <algorithm>

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
  for (int64_t parallelism : kParallelisms) {
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
  for (int64_t parallelism : {2, 4, 8}) {
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
  for (int64_t parallelism : kParallelisms) {
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

#include "dataset/interleave_dataset.h"

#include "contract.h"

namespace sluice {
namespace {

const ElementSpec kInt64Scalar{{"", DType::kInt64, Shape{}}};

// x -> from_tensors(x).repeat(6): tf.data's documented interleave input.
Result<DatasetPtr> SixCopies(const Element& e) { return Pipeline::FromTensors({{"", e[0]}}).Repeat(6).Build(); }

// tf.data's documented example:
//   range(1, 6).interleave(lambda x: from_tensors(x).repeat(6), cycle_length=2, block_length=4)
TEST(InterleaveDatasetTest, DocumentedCycleAndBlockOrder) {
  auto pipeline = Pipeline::Range({.start = 1, .stop = 6})
                      .Interleave(SixCopies, kInt64Scalar, {.cycle_length = 2, .block_length = 4});
  testing::ExpectProduces(pipeline, testing::Ints({1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3,
                                                   4, 4, 5, 5, 5, 5, 5, 5}));
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

TEST(InterleaveDatasetTest, MatchesTheReferenceForUnevenAndEmptySubDatasets) {
  std::vector<std::vector<int64_t>> inputs;
  for (int64_t x = 0; x < 11; ++x) {
    std::vector<int64_t> sub;
    for (int64_t v = 10 * x; v < 10 * x + x % 4; ++v) sub.push_back(v);
    inputs.push_back(sub);
  }
  for (int64_t cycle : {1, 2, 3, 5, 16}) {
    for (int64_t block : {1, 2, 3}) {
      auto pipeline =
          Pipeline::Range(11).Interleave(Uneven, kInt64Scalar, {.cycle_length = cycle, .block_length = block});
      EXPECT_EQ(testing::Values(testing::Collect(pipeline)), ReferenceInterleave(inputs, cycle, block))
          << "cycle_length=" << cycle << " block_length=" << block;
    }
  }
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
  auto pipeline = testing::FailingRange(4, {1}).Interleave(
      [](const Element& e) -> Result<DatasetPtr> {
        const int64_t x = e[0].scalar<int64_t>();
        if (x == 2) return InvalidArgumentError("element 2 failed");
        return testing::FailingRange(3, {x == 3 ? 1 : 99}).Build();
      },
      kInt64Scalar, {.cycle_length = 1});
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
}

TEST(InterleaveDatasetTest, EarlyDestructionWithPrefetchingSubIterators) {
  auto pipeline = Pipeline::Range(100).Interleave(
      [](const Element& e) { return Pipeline::Range(1000).Prefetch(2).Build(); }, kInt64Scalar, {.cycle_length = 4});
  testing::ExpectEarlyDestructionIsClean(testing::Build(pipeline), 10);
}

}  // namespace
}  // namespace sluice

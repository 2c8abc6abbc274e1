#include "sluice/dataset/pack_sequences_dataset.h"

#include <random>

#include "contract.h"
#include "sluice/dataset/runtime.h"

namespace sluice {
namespace {

using testing::ExpectError;
using testing::ExpectProduces;

// The rank-1 int64 elements `rows` of one component "tokens".
Pipeline Sequences(std::vector<std::vector<int64_t>> rows, std::string name = "tokens") {
  const int64_t n = static_cast<int64_t>(rows.size());
  return Pipeline::Range(n).Map(
      [rows = std::move(rows)](Element e) -> Result<Element> {
        return Element{Tensor::FromVector(rows[e[0].scalar<int64_t>()])};
      },
      {.output_spec = ElementSpec{{name, DType::kInt64, PartialShape{-1}}}});
}

Tensor Int32s(std::vector<int32_t> values) { return Tensor::FromVector(values); }

// One packed row of one component: values, segment ids, positions.
Element Packed(std::vector<int64_t> values, std::vector<int32_t> segment_ids, std::vector<int32_t> positions) {
  return Element{testing::Vec(std::move(values)), Int32s(std::move(segment_ids)), Int32s(std::move(positions))};
}

// Grain's packing test scenario: capacity 10, items of length 4, 8, 2 give
// row 0 = [4-item, 2-item] and row 1 = [8-item].
TEST(PackSequencesDatasetTest, FirstFitAsGrain) {
  ExpectProduces(Sequences({{1, 1, 1, 1}, {2, 2, 2, 2, 2, 2, 2, 2}, {3, 3}})
                     .PackSequences({.sequence_lengths = {10}, .max_open_rows = 2}),
                 {Packed({1, 1, 1, 1, 3, 3, 0, 0, 0, 0}, {1, 1, 1, 1, 2, 2, 0, 0, 0, 0}, {0, 1, 2, 3, 0, 1, 0, 0, 0, 0}),
                  Packed({2, 2, 2, 2, 2, 2, 2, 2, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 1, 0, 0}, {0, 1, 2, 3, 4, 5, 6, 7, 0, 0})});
}

// Grain's SingleBinPackIterDataset example (one open row): a full element is
// emitted ahead of the partly filled row.
TEST(PackSequencesDatasetTest, SingleOpenRowAsGrain) {
  const std::vector<Element> expected = {Packed({1, 2, 3, 4}, {1, 1, 1, 1}, {0, 1, 2, 3}),
                                         Packed({11, 12, 13, 14}, {1, 1, 1, 1}, {0, 1, 2, 3}),
                                         Packed({5, 6, 7, 8}, {1, 1, 2, 3}, {0, 1, 0, 0})};
  for (int64_t open : {1, 2}) {
    ExpectProduces(Sequences({{1, 2, 3, 4}, {5, 6}, {11, 12, 13, 14}, {7}, {8}})
                       .PackSequences({.sequence_lengths = {4}, .max_open_rows = open}),
                   expected);
  }
}

// With the bound hit, only the fullest row leaves; the others go on
// filling, and at the end the open rows leave in the order they opened.
TEST(PackSequencesDatasetTest, TheFullestRowLeavesAtTheBound) {
  ExpectProduces(Sequences({{1, 1}, {2, 2, 2}, {4, 4, 4}, {5}})
                     .PackSequences({.sequence_lengths = {4}, .max_open_rows = 2}),
                 {Packed({2, 2, 2, 0}, {1, 1, 1, 0}, {0, 1, 2, 0}),   // [4, 4, 4] fits no open row
                  Packed({1, 1, 5, 0}, {1, 1, 2, 0}, {0, 1, 0, 0}),   // opened first
                  Packed({4, 4, 4, 0}, {1, 1, 1, 0}, {0, 1, 2, 0})});
}

// Each component has its own row length; an element goes where all of its
// components fit. Long sequences are cut, or refused.
TEST(PackSequencesDatasetTest, SeveralComponentsAndLongSequences) {
  auto pairs = Pipeline::Range(3).Map(
      [](Element e) -> Result<Element> {
        const int64_t x = e[0].scalar<int64_t>();
        return Element{Tensor::FromVector(std::vector<int64_t>(2, x + 1)),
                       Tensor::FromVector(std::vector<float>(x == 2 ? 5 : 1, static_cast<float>(x + 1)))};
      },
      {.output_spec = ElementSpec{{"inputs", DType::kInt64, PartialShape{-1}}, {"targets", DType::kFloat32, PartialShape{-1}}}});
  DatasetPtr dataset = testing::Build(pairs.PackSequences({.sequence_lengths = {6, 4}}));
  EXPECT_EQ(dataset->element_spec().ToString(),
            "(inputs: int64[6], inputs_segment_ids: int32[6], inputs_positions: int32[6], targets: float32[4], "
            "targets_segment_ids: int32[4], targets_positions: int32[4])");
  // Element 2's targets (5 values) are cut to 4: it fits no open row and opens one.
  ExpectProduces(dataset,
                 {Element{testing::Vec({1, 1, 2, 2, 0, 0}), Int32s({1, 1, 2, 2, 0, 0}), Int32s({0, 1, 0, 1, 0, 0}),
                          Tensor::FromVector<float>({1, 2, 0, 0}), Int32s({1, 2, 0, 0}), Int32s({0, 0, 0, 0})},
                  Element{testing::Vec({3, 3, 0, 0, 0, 0}), Int32s({1, 1, 0, 0, 0, 0}), Int32s({0, 1, 0, 0, 0, 0}),
                          Tensor::FromVector<float>({3, 3, 3, 3}), Int32s({1, 1, 1, 1}), Int32s({0, 1, 2, 3})}});

  auto results = testing::CollectResults(
      testing::Build(pairs.PackSequences({.sequence_lengths = {6, 4}, .truncate_long_sequences = false})));
  ASSERT_EQ(results.size(), 2u);
  testing::ExpectStatus(results[0].status(), StatusCode::kInvalidArgument,
                        "pack_sequences: component targets has a sequence of length 5, longer than its rows of 4 "
                        "(truncate_long_sequences is off)");
  EXPECT_TRUE(results[1].ok()) << results[1].status();
}

TEST(PackSequencesDatasetTest, EmptyElementsAreSkippedAndPositionalNamesUsed) {
  DatasetPtr dataset = testing::Build(Sequences({{}, {7, 7}, {}}, "").PackSequences({.sequence_lengths = {3}}));
  EXPECT_EQ(dataset->element_spec().ToString(),
            "(0: int64[3], 0_segment_ids: int32[3], 0_positions: int32[3])");
  ExpectProduces(dataset, {Packed({7, 7, 0}, {1, 1, 0}, {0, 1, 0})});
  ExpectProduces(Sequences({{}, {}}).PackSequences({.sequence_lengths = {3}}), {});
}

// An eager reference: first fit over the open rows, with the rules of the
// op's header, on one component.
std::vector<Element> ReferencePacking(const std::vector<std::vector<int64_t>>& sequences, int64_t length,
                                      size_t max_open) {
  struct Row {
    std::vector<int64_t> values, segment_ids, positions;
  };
  auto to_element = [&](Row row) {
    row.values.resize(length, 0);
    row.segment_ids.resize(length, 0);
    row.positions.resize(length, 0);
    std::vector<int32_t> ids(row.segment_ids.begin(), row.segment_ids.end());
    std::vector<int32_t> positions(row.positions.begin(), row.positions.end());
    return Packed(row.values, ids, positions);
  };
  std::vector<Row> open;
  std::vector<Element> out;
  auto add = [&](Row& row, const std::vector<int64_t>& s) {
    const int64_t segment = row.segment_ids.empty() ? 1 : row.segment_ids.back() + 1;
    for (size_t i = 0; i < s.size(); ++i) {
      row.values.push_back(s[i]);
      row.segment_ids.push_back(segment);
      row.positions.push_back(static_cast<int64_t>(i));
    }
  };
  for (std::vector<int64_t> s : sequences) {
    if (static_cast<int64_t>(s.size()) > length) s.resize(length);
    if (s.empty()) continue;
    auto fits = std::find_if(open.begin(), open.end(),
                             [&](const Row& r) { return static_cast<int64_t>(r.values.size() + s.size()) <= length; });
    if (fits != open.end()) {
      add(*fits, s);
      if (static_cast<int64_t>(fits->values.size()) == length) {
        out.push_back(to_element(*fits));
        open.erase(fits);
      }
      continue;
    }
    Row row;
    add(row, s);
    if (static_cast<int64_t>(s.size()) == length) {
      out.push_back(to_element(row));
      continue;
    }
    if (open.size() == max_open) {
      auto fullest = std::max_element(open.begin(), open.end(),
                                      [](const Row& a, const Row& b) { return a.values.size() < b.values.size(); });
      out.push_back(to_element(*fullest));
      open.erase(fullest);
    }
    open.push_back(row);
  }
  for (Row& row : open) out.push_back(to_element(row));
  return out;
}

TEST(PackSequencesDatasetTest, MatchesAnEagerReference) {
  std::mt19937_64 rng(11);
  for (size_t open : {1, 3, 8}) {
    std::vector<std::vector<int64_t>> sequences;
    for (int i = 0; i < 300; ++i) {
      std::vector<int64_t> s(rng() % 40);
      for (int64_t& v : s) v = static_cast<int64_t>(rng() % 1000) + 1;
      sequences.push_back(std::move(s));
    }
    ExpectProduces(Sequences(sequences).PackSequences({.sequence_lengths = {32}, .max_open_rows = static_cast<int64_t>(open)}),
                   ReferencePacking(sequences, 32, open));
  }
}

TEST(PackSequencesDatasetTest, SpecAndCardinality) {
  DatasetPtr dataset = testing::Build(Sequences({{1}}).PackSequences({.sequence_lengths = {16}}));
  EXPECT_EQ(dataset->cardinality(), kUnknownCardinality);
  EXPECT_EQ(dataset->op_name(), "pack_sequences");
  EXPECT_EQ(dataset->DebugParams(), "sequence_lengths=(tokens: 16), max_open_rows=8, truncate_long_sequences=true");
}

TEST(PackSequencesDatasetTest, InvalidArguments) {
  ExpectError(Sequences({{1}}).PackSequences({}), StatusCode::kInvalidArgument,
              "pack_sequences: expected one sequence length per component (1) or a single one, got 0");
  ExpectError(Sequences({{1}}).PackSequences({.sequence_lengths = {0}}), StatusCode::kInvalidArgument,
              "pack_sequences: sequence_lengths[0] must be in [1, 2147483647] (got 0)");
  ExpectError(Sequences({{1}}).PackSequences({.sequence_lengths = {int64_t{1} << 31}}), StatusCode::kInvalidArgument,
              "sequence_lengths[0] must be in [1, 2147483647] (got 2147483648)");
  ExpectError(Sequences({{1}}).PackSequences({.sequence_lengths = {4}, .max_open_rows = 0}),
              StatusCode::kInvalidArgument, "pack_sequences: max_open_rows must be in [1, 4096] (got 0)");
  ExpectError(Sequences({{1}}).PackSequences({.sequence_lengths = {4}, .max_open_rows = 4097}),
              StatusCode::kInvalidArgument, "max_open_rows must be in [1, 4096] (got 4097)");
  ExpectError(Pipeline::Range(3).PackSequences({.sequence_lengths = {4}}), StatusCode::kInvalidArgument,
              "pack_sequences: component 0 has shape []; packing takes 1-D sequences");
  ExpectError(Pipeline::FromSlices({{"s", Tensor::FromVector<std::string>({"a", "b"}, Shape{1, 2})}})
                  .PackSequences({.sequence_lengths = {4}}),
              StatusCode::kInvalidArgument, "pack_sequences: component s is a string");
  ExpectError(Pipeline::FromSlices({{"a", Tensor::FromVector<int64_t>({1, 2}, Shape{1, 2})},
                                    {"a_positions", Tensor::FromVector<int64_t>({1, 2}, Shape{1, 2})}})
                  .PackSequences({.sequence_lengths = {4}}),
              StatusCode::kInvalidArgument, "pack_sequences: the packed rows would have two components named a_positions");
}

// An input error is returned at once; the open rows are kept.
TEST(PackSequencesDatasetTest, ErrorMidStream) {
  auto sequences = testing::FailingRange(4, {1}).Map(
      [](Element e) -> Result<Element> {
        return Element{Tensor::FromVector(std::vector<int64_t>(2, e[0].scalar<int64_t>()))};
      },
      {.output_spec = ElementSpec{{"t", DType::kInt64, PartialShape{-1}}}});
  auto results = testing::CollectResults(testing::Build(sequences.PackSequences({.sequence_lengths = {4}})));
  ASSERT_EQ(results.size(), 3u);
  testing::ExpectFailedElement(results[0], 1);
  EXPECT_TRUE(results[1]->Equals(Packed({0, 0, 2, 2}, {1, 1, 2, 2}, {0, 1, 0, 1}))) << *results[1];
  EXPECT_TRUE(results[2]->Equals(Packed({3, 3, 0, 0}, {1, 1, 0, 0}, {0, 1, 0, 0}))) << *results[2];
}

// Saved mid-pack (several rows open, partly filled) and restored exactly.
TEST(PackSequencesDatasetTest, ResumesMidPack) {
  testing::ExpectResumesEverywhere([] {
    return Sequences({{1, 1}, {2, 2, 2}, {4, 4, 4}, {5}, {6, 6, 6, 6, 6}, {7}, {8, 8}, {9, 9, 9}})
        .PackSequences({.sequence_lengths = {4}, .max_open_rows = 2});
  });
}

TEST(PackSequencesDatasetTest, OpenRowsAreChargedToTheRamBudget) {
  IteratorContext ctx;
  // A row of 100 int64 values and two int32 vectors takes 1600 bytes.
  ctx.runtime = Runtime::Create({.ram_budget_bytes = 3000});
  DatasetPtr dataset = testing::Build(
      Sequences({std::vector<int64_t>(60, 1), std::vector<int64_t>(60, 2)}).PackSequences({.sequence_lengths = {100}}));
  auto it = dataset->MakeIterator(ctx);
  Result<std::optional<Element>> next = it->GetNext();
  ASSERT_FALSE(next.ok());
  testing::ExpectStatus(next.status(), StatusCode::kResourceExhausted,
                        "pack_sequences: opening a row of 1600 bytes beside the 1 open (1600 bytes) would pass the "
                        "RAM budget of 3000 bytes");
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 1600);
  it.reset();
  EXPECT_EQ(ctx.runtime->ram_budget().used(), 0);
}

TEST(PackSequencesDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(
      testing::Build(Sequences({{1, 2}, {3}, {4, 5, 6}}).Repeat(20).PackSequences({.sequence_lengths = {8}})), 2);
}

}  // namespace
}  // namespace sluice

#include "dataset/map_dataset.h"

#include "contract.h"
#include "dataset/builtin_functions.h"

namespace sluice {
namespace {

using testing::ExpectProduces;

Result<Element> Square(Element e) {
  const int64_t v = e[0].scalar<int64_t>();
  return Element{Tensor::Scalar<int64_t>(v * v)};
}

TEST(MapDatasetTest, AppliesFunctionInOrder) {
  ExpectProduces(Pipeline::Range(5).Map(Square), testing::Ints({0, 1, 4, 9, 16}));
}

TEST(MapDatasetTest, DeclaredOutputSpecAndCardinality) {
  auto pipeline = Pipeline::Range(4).Map(
      [](Element e) -> Result<Element> {
        return Element{Tensor::Scalar(static_cast<float>(e[0].scalar<int64_t>())), e[0]};
      },
      {.output_spec = ElementSpec{{"f", DType::kFloat32, Shape{}}, {"i", DType::kInt64, Shape{}}}});
  DatasetPtr dataset = testing::Build(pipeline);
  EXPECT_EQ(dataset->element_spec().ToString(), "(f: float32[], i: int64[])");
  EXPECT_EQ(dataset->cardinality(), 4);
  EXPECT_EQ(testing::Collect(dataset).size(), 4u);
}

TEST(MapDatasetTest, OutputNotMatchingDeclaredSpecIsAnErrorForThatElement) {
  auto results = testing::CollectResults(testing::Build(Pipeline::Range(2).Map(
      [](Element) -> Result<Element> { return Element{Tensor::Scalar(1.0f)}; })));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("dtype float32 but the spec says int64"), std::string::npos)
      << results[0].status();
}

TEST(MapDatasetTest, ErrorIsPerElementAndIteratorStaysUsable) {
  auto results = testing::CollectResults(testing::Build(testing::FailingRange(5, {1, 3})));
  ASSERT_EQ(results.size(), 5u);
  EXPECT_EQ(results[0]->operator[](0).scalar<int64_t>(), 0);
  testing::ExpectFailedElement(results[1], 1);
  EXPECT_EQ(results[2]->operator[](0).scalar<int64_t>(), 2);
  testing::ExpectFailedElement(results[3], 3);
  EXPECT_EQ(results[4]->operator[](0).scalar<int64_t>(), 4);
}

TEST(MapDatasetTest, OutOfRangeFromTheFunctionBecomesInvalidArgument) {
  auto results = testing::CollectResults(testing::Build(
      Pipeline::Range(1).Map([](Element) -> Result<Element> { return OutOfRangeError("done early"); })));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("Function invocation produced OutOfRangeError"), std::string::npos);
}

// A row-wise function maps whole runs; a failure inside a run still lands
// on its own element, with the rows before and after it intact.
TEST(MapDatasetTest, RowWiseFunctionOnRunsKeepsPerElementErrors) {
  Tensor x = Tensor::FromVector<int64_t>({0, 1, 2, 3, 4, 5, 6, 7});
  auto doubled = Pipeline::FromSlices({{"x", x}}).Map(
      [](Element e) -> Result<Element> {
        Tensor out = Tensor::Allocate(DType::kInt64, e[0].shape());
        for (int64_t i = 0; i < e[0].NumElements(); ++i) {
          const int64_t v = e[0].data<int64_t>()[i];
          if (v == 5) return InvalidArgumentError("element 5 failed");
          out.mutable_data<int64_t>()[i] = 2 * v;
        }
        return Element{out};
      },
      {.row_wise = true});
  DatasetPtr dataset = testing::Build(doubled);
  auto it = dataset->MakeIterator();
  std::vector<int64_t> values;
  int errors = 0;
  while (true) {
    auto run = it->GetNextRun(3);
    if (!run.ok()) {
      ++errors;
      EXPECT_NE(run.status().message().find("element 5 failed"), std::string::npos);
      continue;
    }
    if (!run->has_value()) break;
    for (int64_t i = 0; i < (**run)[0].dim(0); ++i) values.push_back((**run)[0].data<int64_t>()[i]);
  }
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(values, (std::vector<int64_t>{0, 2, 4, 6, 8, 12, 14}));
}

TEST(MapDatasetTest, InvalidArguments) {
  testing::ExpectError(MakeMapDataset(nullptr, MakeLambdaFunction(Square)), StatusCode::kInvalidArgument, "null");
  testing::ExpectError(MakeMapDataset(*MakeRangeDataset({.stop = 1}), nullptr), StatusCode::kInvalidArgument, "null");
}

// One built-in function object serves two maps where its component sits at
// different positions: each map binds it to its own input, runs included.
TEST(MapDatasetTest, SameBuiltinFunctionAtDifferentPositions) {
  const ElementFunctionPtr scale = *MakeScaleShiftFunction("x", 10.0, 0.5);
  const Tensor xs = testing::Vec({1, 2, 3});
  const Tensor ys = testing::Vec({7, 8, 9});
  const Pipeline x_first = Pipeline::FromSlices({{"x", xs}, {"y", ys}}).Map(scale);
  const Pipeline x_second = Pipeline::FromSlices({{"y", ys}, {"x", xs}}).Map(scale);
  std::vector<Element> expected_first, expected_second;
  for (int64_t i = 0; i < 3; ++i) {
    const Tensor x = Tensor::Scalar(10.0f * (i + 1) + 0.5f);
    const Tensor y = Tensor::Scalar<int64_t>(7 + i);
    expected_first.push_back(Element{x, y});
    expected_second.push_back(Element{y, x});
  }
  testing::ExpectProduces(x_first, expected_first);
  testing::ExpectProduces(x_second, expected_second);
  testing::ExpectRunsMatchElements(testing::Build(x_first), 2);
  testing::ExpectRunsMatchElements(testing::Build(x_second), 2);
}

// A function that names a missing component fails when the map is built,
// with the function's own error under "map".
TEST(MapDatasetTest, MissingComponentFailsAtBuildTime) {
  DatasetPtr input = *MakeFromSlicesDataset({{"y", testing::Vec({1, 2})}});
  Result<DatasetPtr> map = MakeMapDataset(input, *MakeCastFunction("x", DType::kFloat32));
  ASSERT_FALSE(map.ok());
  EXPECT_EQ(map.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(map.status().message(),
            "map: cast(x -> float32): no component named 'x' in element spec (y: int64[])");
}

TEST(MapDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Map(Square)), 5);
}

}  // namespace
}  // namespace sluice

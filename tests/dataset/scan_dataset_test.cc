#include "sluice/dataset/scan_dataset.h"

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"

namespace sluice {
namespace {

// tf.data's scan_func = lambda state, i: (state + i, state + i), on the
// element (state, i).
Result<Element> RunningSum(Element e) {
  const int64_t sum = e[0].scalar<int64_t>() + e[1].scalar<int64_t>();
  return Element{Tensor::Scalar<int64_t>(sum), Tensor::Scalar<int64_t>(sum)};
}

ScanOptions ZeroState(std::string name = "") { return {.initial_state = {{name, Tensor::Scalar<int64_t>(0)}}}; }

// The previous element: select keeps x as the next state and emits the state.
Pipeline Lagged(Pipeline input) { return input.Scan(ZeroState("prev"), MakeSelectFunction({"x", "prev"})); }

// tf.data's documented example: range(10).scan(0, running sum).
TEST(ScanDatasetTest, DocumentedExample) {
  auto pipeline = Pipeline::Range(10).Scan(ZeroState(), RunningSum);
  testing::ExpectProduces(pipeline, testing::Ints({0, 1, 3, 6, 10, 15, 21, 28, 36, 45}));
  EXPECT_EQ(testing::Build(pipeline)->cardinality(), 10);
}

TEST(ScanDatasetTest, BuiltinFunctionAndItsSpec) {
  auto pipeline = Lagged(Pipeline::FromSlices({{"x", testing::Vec({5, 6, 7})}}));
  testing::ExpectProduces(pipeline, testing::Ints({0, 5, 6}));
  EXPECT_EQ(testing::Build(pipeline)->element_spec().ToString(), "(prev: int64[])");
  EXPECT_EQ(testing::Build(Pipeline::Range(4).Repeat().Scan(ZeroState(), RunningSum))->cardinality(),
            kInfiniteCardinality);
}

TEST(ScanDatasetTest, InvalidArguments) {
  auto xs = Pipeline::FromSlices({{"x", testing::Vec({1, 2})}});
  testing::ExpectError(xs.Scan({}, MakeSelectFunction({"x"})), StatusCode::kInvalidArgument,
                       "scan: initial_state is empty (give the state's components)");
  testing::ExpectError(xs.Scan(ZeroState("x"), MakeSelectFunction({"x"})), StatusCode::kInvalidArgument,
                       "scan: the state and the input element both have a component named 'x'");
  testing::ExpectError(xs.Scan(ZeroState("prev"), MakeSelectFunction({"x"})), StatusCode::kInvalidArgument,
                       "scan: select(x) returns (x: int64[]): expected the new state's 1 components, then at least "
                       "one output component");
  testing::ExpectError(xs.Scan(ZeroState("prev"), MakeCastFunction("prev", DType::kFloat32)),
                       StatusCode::kInvalidArgument,
                       "scan: cast(prev -> float32)'s new state must match initial_state (prev: int64[]), but its "
                       "first components are (prev: float32[], x: int64[])");
  testing::ExpectError(xs.Scan(ZeroState("prev"), MakeSelectFunction({"y", "prev"})), StatusCode::kInvalidArgument,
                       "scan: select");
  testing::ExpectError(MakeScanDataset(testing::Build(xs), nullptr, ZeroState()), StatusCode::kInvalidArgument,
                       "scan: fn is null");
}

// A new state of another shape than the initial one is that element's error.
TEST(ScanDatasetTest, NewStateMustKeepItsShape) {
  auto grows = Pipeline::Range(3).Scan(
      ZeroState(), [](Element e) -> Result<Element> { return Element{testing::Vec({1, 2}), e[1]}; },
      {.output_spec = ElementSpec{{"", DType::kInt64, PartialShape::UnknownRank()}, {"", DType::kInt64, Shape{}}}});
  auto results = testing::CollectResults(testing::Build(grows));
  ASSERT_EQ(results.size(), 3u);
  ASSERT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results[0].status().message().find("scan: the new state: "), std::string::npos) << results[0].status();
}

// An error from fn or from the input is that element's error, and leaves
// the state as it was.
TEST(ScanDatasetTest, ErrorsLeaveTheStateAlone) {
  auto failing_fn = Pipeline::Range(5).Scan(ZeroState(), [](Element e) -> Result<Element> {
    if (e[1].scalar<int64_t>() == 2) return InvalidArgumentError("element 2 failed");
    return RunningSum(std::move(e));
  });
  auto results = testing::CollectResults(testing::Build(failing_fn));
  ASSERT_EQ(results.size(), 5u);
  testing::ExpectFailedElement(results[2], 2);
  EXPECT_NE(results[2].status().message().find("scan: "), std::string::npos) << results[2].status();
  EXPECT_EQ((*results[3])[0].scalar<int64_t>(), 4);
  EXPECT_EQ((*results[4])[0].scalar<int64_t>(), 8);

  auto failing_input = testing::CollectResults(testing::Build(testing::FailingRange(4, {1}).Scan(ZeroState(), RunningSum)));
  ASSERT_EQ(failing_input.size(), 4u);
  testing::ExpectFailedElement(failing_input[1], 1);
  EXPECT_EQ((*failing_input[2])[0].scalar<int64_t>(), 2);
  EXPECT_EQ((*failing_input[3])[0].scalar<int64_t>(), 5);
}

TEST(ScanDatasetTest, ResumesMidStream) {
  testing::ExpectResumesEverywhere([] { return testing::FailingRange(7, {2}).Scan(ZeroState(), RunningSum); });
  testing::ExpectResumesEverywhere([] { return Lagged(Pipeline::FromSlices({{"x", testing::Vec({3, 1, 4, 1})}})); });
}

TEST(ScanDatasetTest, EarlyDestruction) {
  testing::ExpectEarlyDestructionIsClean(testing::Build(Pipeline::Range(100).Prefetch(2).Scan(ZeroState(), RunningSum)),
                                         3);
}

}  // namespace
}  // namespace sluice

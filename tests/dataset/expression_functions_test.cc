#include "sluice/dataset/expression_functions.h"

#include "contract.h"
#include "function_spec_round_trip.h"
#include "sluice/dataset/bucket_by_sequence_length_dataset.h"
#include "sluice/dataset/pipeline_spec_io.h"

namespace sluice {
namespace {

using testing::ExpectProduces;
using testing::Ok;

// x: float32[4] per element, label: int64 scalar.
Pipeline Source() {
  std::vector<float> x;
  for (int i = 0; i < 24; ++i) x.push_back(static_cast<float>(i) - 8);
  return Pipeline::FromSlices({{"x", Tensor::FromVector(x, Shape{6, 4})},
                               {"label", Tensor::FromVector<int64_t>({0, 1, 2, 0, 1, 2})}});
}

Element Row(std::vector<float> values) { return Element{Tensor::FromVector(values)}; }

TEST(ExpressionFunctionsTest, MapFromTextAndFromBuilderAgree) {
  ElementFunctionPtr from_text = Ok(MakeExpressionFunction({{"y", "x * 0.5 + 1"}}));
  ElementFunctionPtr from_builder = Ok(MakeExpressionFunction({{"y", expr::Col("x") * 0.5 + 1}}));
  EXPECT_EQ(from_text->name(), "expression(y = x * 0.5 + 1)");
  EXPECT_EQ(from_builder->name(), from_text->name());
  std::vector<Element> expected;
  for (int r = 0; r < 6; ++r) {
    std::vector<float> y;
    for (int c = 0; c < 4; ++c) y.push_back((static_cast<float>(r * 4 + c) - 8) * 0.5f + 1);
    expected.push_back(Row(y));
  }
  ExpectProduces(Source().Map(from_text), expected);
  ExpectProduces(Source().Map(from_builder, {.num_parallel_calls = 3}), expected);
  const DatasetPtr mapped = testing::Build(Source().Map(from_text));
  EXPECT_EQ(mapped->element_spec(), (ElementSpec{{"y", DType::kFloat32, Shape{4}}}));
  // Row-wise, so runs pass through whole and give the same elements.
  const ElementSpec input = testing::Build(Source())->element_spec();
  EXPECT_TRUE(Ok(from_text->Bind(input)).row_wise);
  // x and label have different ranks: a run would misalign them.
  ElementFunctionPtr mixed = Ok(MakeExpressionFunction({{"y", "x + cast(label, float32)"}}));
  EXPECT_FALSE(Ok(mixed->Bind(input)).row_wise);
  testing::ExpectRunsMatchElements(testing::Build(Source().Map(Ok(MakeSelectFunction({"x"}))).Map(from_text)), 4);
}

TEST(ExpressionFunctionsTest, KeepInputsReplacesByName) {
  ElementFunctionPtr fn = Ok(MakeExpressionFunction({{"label", "cast(label == 1, int32)"}, {"sum", "label + 10"}},
                                                    {.keep_inputs = true}));
  EXPECT_EQ(fn->name(), "expression(keep inputs; label = cast(label == 1, int32), sum = label + 10)");
  const DatasetPtr mapped = testing::Build(Source().Map(fn));
  EXPECT_EQ(mapped->element_spec(),
            (ElementSpec{{"x", DType::kFloat32, Shape{4}}, {"label", DType::kInt32, Shape{}}, {"sum", DType::kInt64, Shape{}}}));
  std::vector<Element> out = testing::Collect(mapped);
  ASSERT_EQ(out.size(), 6u);
  EXPECT_TRUE(out[1][1].Equals(Tensor::Scalar<int32_t>(1)));
  EXPECT_TRUE(out[2][1].Equals(Tensor::Scalar<int32_t>(0)));
  EXPECT_TRUE(out[2][2].Equals(Tensor::Scalar<int64_t>(12)));  // reads the input label
}

TEST(ExpressionFunctionsTest, FilterKeepsWhereTrue) {
  PredicatePtr predicate = Ok(MakeExpressionPredicate("label != 0 and label < 2"));
  EXPECT_EQ(predicate->name(), "expression(label != 0 and label < 2)");
  std::vector<Element> kept = testing::Collect(Source().Filter(predicate));
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE(kept[0][0].Equals(Tensor::FromVector<float>({-4, -3, -2, -1})));
  EXPECT_TRUE(kept[1][0].Equals(Tensor::FromVector<float>({8, 9, 10, 11})));
  PredicatePtr built = Ok(MakeExpressionPredicate(expr::Col("label") != 0 && expr::Col("label") < 2));
  EXPECT_EQ(built->name(), predicate->name());
  spec::Predicate proto;
  ASSERT_TRUE(predicate->ToSpec(&proto).ok());
  PredicatePtr again = Ok(PredicateFromSpec(proto));
  EXPECT_EQ(again->name(), predicate->name());
}

TEST(ExpressionFunctionsTest, InvalidFunctions) {
  testing::ExpectStatus(MakeExpressionFunction(std::vector<ExpressionOutput>{}).status(), StatusCode::kInvalidArgument,
                        "expression: at least one output is required");
  testing::ExpectStatus(MakeExpressionFunction({{"y", "x"}, {"y", "x"}}).status(), StatusCode::kInvalidArgument,
                        "expression: output 'y' is listed twice");
  testing::ExpectStatus(MakeExpressionFunction({{"y", "x +"}}).status(), StatusCode::kInvalidArgument,
                        "expression: output y: expression \"x +\": column 4: expected an operand, found the end");
  testing::ExpectError(Source().Map(MakeExpressionFunction({{"y", "x + label"}})), StatusCode::kInvalidArgument,
                       "expression(y = x + label): outputs[0]: add: args[0] (x) is float32[4] but args[1] (label) is "
                       "int64[]");
  testing::ExpectError(Source().Filter(MakeExpressionPredicate("label + 1")), StatusCode::kInvalidArgument,
                       "expression(label + 1): the expression gives int64[], not a bool scalar");
  testing::ExpectError(Source().Filter(MakeExpressionPredicate("x > 0")), StatusCode::kInvalidArgument,
                       "expression(x > 0): the expression gives bool[4], not a bool scalar");
}

TEST(ExpressionFunctionsTest, ErrorsMidStreamAreForThatElement) {
  DatasetPtr mapped = testing::Build(Source().Map(MakeExpressionFunction({{"q", "10 / label"}})));
  std::vector<Result<Element>> results = testing::CollectResults(mapped);
  ASSERT_EQ(results.size(), 6u);
  EXPECT_FALSE(results[0].ok());
  EXPECT_EQ(results[0].status().message(), "map: expression(q = 10 / label): outputs[0]: div: integer division by zero");
  EXPECT_TRUE(Ok(results[1]).Equals(Element{Tensor::Scalar<int64_t>(10)}));
  EXPECT_FALSE(results[3].ok());
  EXPECT_TRUE(Ok(results[5]).Equals(Element{Tensor::Scalar<int64_t>(5)}));
}

TEST(ExpressionFunctionsTest, SpecRoundTrip) {
  testing::ExpectSpecRoundTrip(*Ok(MakeExpressionFunction({{"y", "where(x > 0, x, -x) * 2"}, {"n", "size(x)"}})));
  testing::ExpectSpecRoundTrip(*Ok(MakeExpressionFunction({{"label", "label % 2"}}, {.keep_inputs = true})));
  // Text forms in a spec read as their trees.
  spec::ElementFunction text;
  spec::ExpressionFunction::Output* output = text.mutable_expression()->add_output();
  output->set_name("y");
  output->set_text("x * 0.5 + 1");
  ElementFunctionPtr fn = Ok(ElementFunctionFromSpec(text));
  EXPECT_EQ(fn->name(), "expression(y = x * 0.5 + 1)");
  spec::ElementFunction tree;
  ASSERT_TRUE(fn->ToSpec(&tree).ok());
  EXPECT_EQ(tree.expression().output(0).expression().call().op(), spec::Expression::ADD);
  output->mutable_expression()->set_component("x");
  testing::ExpectStatus(ElementFunctionFromSpec(text).status(), StatusCode::kInvalidArgument,
                        "expression: output 0 ('y') must set exactly one of expression and text");
}

// Expressions in map, filter and bucket_by_sequence_length's length, read
// from a spec's text, written back and read again.
TEST(ExpressionFunctionsTest, PipelineSpecWithMapFilterAndBucketLength) {
  const std::string text = R"pb(
    ops { from_slices {
      components { name: "tokens" tensor { dtype: "int64" shape: [6, 3] int_values: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18] } }
      components { name: "n" tensor { dtype: "int64" shape: [6] int_values: [1, 3, 2, 3, 1, 2] } } } }
    ops { map { fn { expression { keep_inputs: true output { name: "tokens" text: "tokens * 10" } } } } }
    ops { filter { predicate { expression { text: "n != 2" } } } }
    ops { bucket_by_sequence_length {
      length_expression { text: "n * 2" }
      bucket_boundaries: [4] bucket_batch_sizes: [2, 2] no_padding: true } }
  )pb";
  const spec::Pipeline pipeline = Ok(ParseSpecText(text));
  DatasetPtr dataset = Ok(DatasetFromSpec(pipeline));
  const std::vector<Element> expected = {
      Element{Tensor::FromVector<int64_t>({40, 50, 60, 100, 110, 120}, Shape{2, 3}), Tensor::FromVector<int64_t>({3, 3})},
      Element{Tensor::FromVector<int64_t>({10, 20, 30, 130, 140, 150}, Shape{2, 3}), Tensor::FromVector<int64_t>({1, 1})},
  };
  ExpectProduces(dataset, expected);
  const spec::Pipeline written = Ok(DatasetToSpec(*dataset));
  EXPECT_TRUE(written.ops(3).bucket_by_sequence_length().length_expression().has_call());
  ExpectProduces(Ok(DatasetFromSpec(written)), expected);
  EXPECT_NE(dataset->DebugParams().find("length=n * 2"), std::string::npos) << dataset->DebugParams();
}

TEST(ExpressionFunctionsTest, BucketLengthMustBeAnIntegerScalar) {
  testing::ExpectError(Source().BucketBySequenceLength({.length_expression = expr::Col("x") * 2,
                                                        .bucket_boundaries = {2},
                                                        .bucket_batch_sizes = {1, 1}}),
                       StatusCode::kInvalidArgument,
                       "bucket_by_sequence_length: length expression x * 2: the expression gives float32[4], not an "
                       "integer scalar");
  testing::ExpectError(Source().BucketBySequenceLength({.length_component = "x",
                                                        .length_expression = expr::Col("label"),
                                                        .bucket_boundaries = {2},
                                                        .bucket_batch_sizes = {1, 1}}),
                       StatusCode::kInvalidArgument,
                       "bucket_by_sequence_length: set one of length_component, length_expression and length_fn");
}

}  // namespace
}  // namespace sluice

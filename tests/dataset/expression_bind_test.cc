#include "sluice/dataset/expression_bind.h"

#include <gtest/gtest.h>

#include "sluice/dataset/expression_evaluate.h"
#include "sluice/dataset/expression_parse.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// The components every case reads.
ElementSpec Spec() {
  return ElementSpec{{"x", DType::kFloat32, Shape{3}}, {"y", DType::kFloat32, Shape{3}},
                     {"n", DType::kInt32, Shape{}},    {"i", DType::kInt32, Shape{3}},
                     {"j", DType::kInt32, Shape{3}},   {"b", DType::kBool, Shape{3}},
                     {"s", DType::kString, Shape{2}},  {"m", DType::kInt64, Shape{2, 3}},
                     {"v", DType::kFloat32, PartialShape{-1}}};
}

Element Values() {
  return Element{Tensor::FromVector<float>({1.5f, -2, 4}),
                 Tensor::FromVector<float>({0.5f, 2, -1}),
                 Tensor::Scalar<int32_t>(7),
                 Tensor::FromVector<int32_t>({7, -7, 3}),
                 Tensor::FromVector<int32_t>({2, 2, -2}),
                 Tensor::FromVector<bool>({true, false, true}),
                 Tensor::FromVector<std::string>({"ab", "cde"}),
                 Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6}, Shape{2, 3}),
                 Tensor::FromVector<float>({1, 2, 3, 4})};
}

Result<BoundExpression> Bind(const std::string& text) {
  SLUICE_ASSIGN_OR_RETURN(spec::Expression e, ParseExpression(text));
  return BindExpression(e, Spec(), "outputs[0]");
}

template <typename T>
Tensor V(std::vector<T> values) {
  return Tensor::FromVector(values);
}
Tensor B(std::vector<bool> values) { return Tensor::FromVector(values); }

// Every operator: its result on Values(), whose dtype and shape are what
// binding said.
TEST(ExpressionBindTest, EveryOperator) {
  const struct {
    std::string text;
    Tensor expected;
    PartialShape shape;  // as bound, when it differs from the value's
  } cases[] = {
      {"x + y", V<float>({2, 0, 3}), {}},
      {"x - y", V<float>({1, -4, 5}), {}},
      {"x * 0.5 + 1", V<float>({1.75f, 0, 3}), {}},
      {"x / 2", V<float>({0.75f, -1, 2}), {}},
      {"i / j", V<int32_t>({3, -3, -1}), {}},
      {"i % j", V<int32_t>({1, -1, 1}), {}},
      {"-x", V<float>({-1.5f, 2, -4}), {}},
      {"x == 4", B({false, false, true}), {}},
      {"x != 4", B({true, true, false}), {}},
      {"x < y", B({false, true, false}), {}},
      {"x <= 1.5", B({true, true, false}), {}},
      {"x > y", B({true, false, true}), {}},
      {"x >= 4", B({false, false, true}), {}},
      {"b and x > 0", B({true, false, true}), {}},
      {"b or x < 0", B({true, true, true}), {}},
      {"not b", B({false, true, false}), {}},
      {"cast(i, float32)", V<float>({7, -7, 3}), {}},
      {"cast(x, int32)", V<int32_t>({1, -2, 4}), {}},
      {"cast(s, string)", Tensor::FromVector<std::string>({"ab", "cde"}), {}},
      {"abs(i)", V<int32_t>({7, 7, 3}), {}},
      {"min(x, y)", V<float>({0.5f, -2, -1}), {}},
      {"max(i, 0)", V<int32_t>({7, 0, 3}), {}},
      {"clip(x, -1, 2)", V<float>({1.5f, -1, 2}), {}},
      {"exp(cast(n - 7, float32))", Tensor::Scalar(1.0f), {}},
      {"log(x * 0 + 1)", V<float>({0, 0, 0}), {}},
      {"sqrt(x * x)", V<float>({1.5f, 2, 4}), {}},
      {"floor(x / 2)", V<float>({0, -1, 2}), {}},
      {"round(x)", V<float>({2, -2, 4}), {}},
      {"where(b, x, 0)", V<float>({1.5f, 0, 4}), {}},
      {"shape(m)", V<int64_t>({2, 3}), {}},
      {"size(m)", Tensor::Scalar<int64_t>(6), {}},
      {"length(m)", Tensor::Scalar<int64_t>(2), {}},
      {"slice(m, 1, 1)", Tensor::FromVector<int64_t>({2, 3, 5, 6}, Shape{2, 2}), {}},
      {"concat(0, i, j)", V<int32_t>({7, -7, 3, 2, 2, -2}), {}},
      {"strlen(s)", V<int32_t>({2, 3}), {}},
      {"s == \"ab\"", B({true, false}), {}},
      {"n + 1", Tensor::Scalar<int32_t>(8), {}},
      {"1 + 2 * 3", Tensor::Scalar<int64_t>(7), {}},
      {"0.5 + 1", Tensor::Scalar(1.5f), {}},
      {"uint8(200) + 100", Tensor::Scalar<uint8_t>(44), {}},
      {"m * [10, 100, 1000]", Tensor::FromVector<int64_t>({10, 200, 3000, 40, 500, 6000}, Shape{2, 3}), {}},
      {"v * 2", V<float>({2, 4, 6, 8}), PartialShape{-1}},
      {"slice(v, 0, 1, -1)", V<float>({2, 3}), PartialShape{-1}},
      {"shape(v)", V<int64_t>({4}), {}},
  };
  for (const auto& c : cases) {
    Result<BoundExpression> bound = Bind(c.text);
    ASSERT_TRUE(bound.ok()) << c.text << ": " << bound.status();
    EXPECT_EQ(bound->dtype, c.expected.dtype()) << c.text;
    const PartialShape expected_shape = c.shape == PartialShape() ? PartialShape(c.expected.shape()) : c.shape;
    EXPECT_EQ(bound->shape, expected_shape) << c.text << ": bound to " << bound->shape;
    Result<Tensor> value = EvaluateExpression(*bound, Values());
    ASSERT_TRUE(value.ok()) << c.text << ": " << value.status();
    EXPECT_TRUE(value->Equals(c.expected)) << c.text << ": got " << value->DebugString();
  }
}

TEST(ExpressionBindTest, ConstantOperandsFoldAtBindTime) {
  Result<BoundExpression> bound = Bind("x * (2 * 3 - 1)");
  ASSERT_TRUE(bound.ok()) << bound.status();
  ASSERT_EQ(bound->args.size(), 2u);
  EXPECT_EQ(bound->args[1].kind, BoundExpression::Kind::kConstant);
  EXPECT_TRUE(bound->args[1].constant.Equals(Tensor::Scalar(5.0f)));
}

TEST(ExpressionBindTest, TypeErrorsNameThePositionAndBothTypes) {
  const std::pair<std::string, std::string> cases[] = {
      {"x + n", "outputs[0]: add: args[0] (x) is float32[3] but args[1] (n) is int32[]; cast one of them "
                "(operands must have one dtype)"},
      {"x * (n + 0.5)", "outputs[0].args[1]: add: args[1] (0.5): a float literal cannot take dtype int32, the dtype "
                        "of args[0] (n) is int32[]"},
      {"uint8(1) + 300", "outputs[0]: add: args[1] (300): the integer literal 300 is outside the range of uint8, the "
                         "dtype of args[0] (uint8(1)) is uint8[]"},
      {"x + [1.0, 2.0]", "outputs[0]: add: args[0] (x) is float32[3] and args[1] ([1.0, 2.0]) is float32[2]: the "
                         "shapes do not broadcast"},
      {"b + b", "outputs[0]: add: args[0] (b) is bool[3]: add takes integer or floating operands, got bool"},
      {"exp(i)", "outputs[0]: exp: args[0] (i) is int32[3]: exp takes a float32 or float64 operand, got int32"},
      {"not x", "outputs[0]: logical_not: args[0] (x) is float32[3]: not takes a bool operand, got float32"},
      {"where(x, 1, 2)", "outputs[0]: where: the condition args[0] (x) is float32[3], not bool"},
      {"where(b, x, i)", "outputs[0]: where: args[1] (x) is float32[3] but args[2] (i) is int32[3]; cast one of "
                         "them (operands must have one dtype)"},
      {"s < \"b\"", "outputs[0]: less: args[0] (s) is string[2]: less does not compare string operands (strings "
                    "compare with == and != only)"},
      {"s + 1", "outputs[0]: add: args[1] (1): an integer literal cannot take dtype string, the dtype of args[0] (s) "
                "is string[2]"},
      {"cast(s, int32)", "outputs[0]: cast: args[0] (s) is string[2], which cannot be cast to int32 (strings cast "
                         "only to string)"},
      {"strlen(x)", "outputs[0]: strlen: args[0] (x) is float32[3]: strlen takes a string operand, got float32"},
      {"length(n)", "outputs[0]: length: args[0] (n) is int32[]; a scalar has no length (its size along axis 0)"},
      {"slice(m, 2, 0)", "outputs[0]: slice: axis 2 is outside [-2, 2) for args[0] (m) is int64[2, 3]"},
      {"concat(0, i, x)", "outputs[0]: concat: args[0] (i) is int32[3] but args[1] (x) is float32[3]; operands must "
                          "have one dtype"},
      {"concat(0, m, i)", "outputs[0]: concat: args[0] (m) is int64[2, 3] but args[1] (i) is int32[3]; operands "
                          "must have one dtype"},
      {"concat(1, m, m * slice(m, 0, 0, 1))", ""},
      {"concat(0, m, cast(i, int64))", "outputs[0]: concat: args[0] (m) is int64[2, 3] but args[1] (cast(i, "
                                       "int64)) is int64[3]; operands must have one rank"},
      {"1 / 0", "outputs[0]: div: integer division by zero"},
  };
  for (const auto& [text, message] : cases) {
    Result<BoundExpression> bound = Bind(text);
    if (message.empty()) {
      EXPECT_TRUE(bound.ok()) << text << ": " << bound.status();
      continue;
    }
    ASSERT_FALSE(bound.ok()) << text;
    EXPECT_EQ(bound.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(bound.status().message(), message) << text;
  }
  Result<BoundExpression> missing = Bind("x + z");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("outputs[0].args[1]"), std::string::npos) << missing.status();
}

TEST(ExpressionBindTest, EvaluationErrorsNameTheNode) {
  Result<BoundExpression> bound = Bind("x + cast(n / (i - 7), float32)");
  ASSERT_TRUE(bound.ok()) << bound.status();
  Result<Tensor> value = EvaluateExpression(*bound, Values());
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().message(), "outputs[0].args[1].args[0]: div: integer division by zero");
}

TEST(ExpressionBindTest, RowWiseWhenElementwiseOverOneRank) {
  const std::pair<std::string, bool> cases[] = {
      {"x * 0.5 + 1", true},
      {"where(b, x, y) + [1.0, 2.0, 3.0]", true},
      {"x + cast(n, float32)", false},  // ranks 1 and 0: a run would misalign them
      {"m * [10, 100, 1000]", true},
      {"[1.0, 2.0] * 2.0", false},      // constants only
      {"length(m) + 1", false},         // not element-wise
      {"v * 2", true},
  };
  for (const auto& [text, row_wise] : cases) {
    Result<BoundExpression> bound = Bind(text);
    ASSERT_TRUE(bound.ok()) << text << ": " << bound.status();
    EXPECT_EQ(IsRowWise(*bound, Spec()), row_wise) << text;
  }
}

}  // namespace
}  // namespace sluice

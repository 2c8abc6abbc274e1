#include "sluice/dataset/expression.h"

#include <gtest/gtest.h>

#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

using expr::Col;

// Each builder gives the tree its text form names.
TEST(ExpressionTest, BuildersPrintAsTheirText) {
  const std::pair<Expr, std::string> cases[] = {
      {Col("x") * 0.5 + 1, "x * 0.5 + 1"},
      {2 * (Col("x") - Col("y")) / 3 % 4, "2 * (x - y) / 3 % 4"},
      {-Col("x"), "-x"},
      {(Col("a") == 1) != (Col("b") < 2), "(a == 1) != (b < 2)"},
      {Col("a") <= 1 && (Col("b") > 2 || !(Col("c") >= 3)), "a <= 1 and (b > 2 or not c >= 3)"},
      {expr::Cast(Col("x"), DType::kInt32), "cast(x, int32)"},
      {expr::Abs(expr::Min(Col("x"), expr::Max(Col("y"), 0))), "abs(min(x, max(y, 0)))"},
      {expr::Clip(Col("x"), 0.0, 1.0), "clip(x, 0.0, 1.0)"},
      {expr::Exp(expr::Log(expr::Sqrt(expr::Floor(expr::Round(Col("x")))))), "exp(log(sqrt(floor(round(x)))))"},
      {expr::Where(Col("m"), Col("x"), 0), "where(m, x, 0)"},
      {expr::Shape(Col("x")) + expr::Size(Col("x")) + expr::Length(Col("x")), "shape(x) + size(x) + length(x)"},
      {expr::Slice(Col("x"), 0, 1), "slice(x, 0, 1)"},
      {expr::Slice(Col("x"), -1, 0, -1), "slice(x, -1, 0, -1)"},
      {expr::Concat(1, {Col("a"), Col("b")}), "concat(1, a, b)"},
      {expr::StringLength(Col("s")) > int64_t{3}, "strlen(s) > 3"},
      {expr::Constant(Tensor::FromVector<int32_t>({1, 2})) * Col("x"), "int32([1, 2]) * x"},
      {expr::Constant(Tensor::Scalar("a b")) == Col("s"), "\"a b\" == s"},
      {Col("image/raw") + Col("0"), "`image/raw` + `0`"},
  };
  for (const auto& [e, text] : cases) EXPECT_EQ(e.ToString(), text);
}

TEST(ExpressionTest, ParseAndFromProtoKeepTheTree) {
  Result<Expr> parsed = Expr::Parse("where(label > 0, 1, 0)");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->proto().call().op(), spec::Expression::WHERE);
  const Expr copy = Expr::FromProto(parsed->proto());
  EXPECT_EQ(copy.proto().SerializeAsString(), parsed->proto().SerializeAsString());
  Result<Expr> bad = Expr::Parse("where(");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace sluice

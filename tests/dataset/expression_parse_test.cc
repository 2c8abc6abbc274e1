#include "sluice/dataset/expression_parse.h"

#include <gtest/gtest.h>

#include "sluice/dataset/expression_print.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice {
namespace {

// Texts in the printer's own form: parsing then printing gives them back.
TEST(ExpressionParseTest, PrintedFormReadsBack) {
  const std::string texts[] = {
      "x * 0.5 + 1",
      "(x + 1) * 0.5",
      "x - (y - z)",
      "x - y - z",
      "-x * y",
      "-(x * y)",
      "-(-x)",
      "-(1)",
      "-1 * x",
      "x * (-1)",
      "x / 2 % 3",
      "a < b and b <= c or not d",
      "not (a and b)",
      "(a == b) == c",
      "x != 0",
      "a >= 1.5e-07",
      "where(label > 0, 1, 0)",
      "cast(length(tokens), int32)",
      "clip(x, 0.0, 1.0)",
      "min(abs(x), max(y, 2))",
      "exp(log(sqrt(floor(round(x)))))",
      "shape(x)",
      "size(x) + length(x)",
      "slice(x, 0, 1)",
      "slice(x, -1, -3, -1)",
      "concat(0, a, b, c)",
      "strlen(s) > 3",
      "s == \"a \\\"quoted\\\" \\\\ word\\n\"",
      "`0` + `image/raw`",
      "[1, 2, 3] * x",
      "[[0.5, 1.0], [2.0, inf]]",
      "int64(3) + uint8([1, 2])",
      "bool([1, 0]) or true",
      "[\"a\", \"b\"] == s",
      "float32(nan)",
      "x + -inf",
  };
  for (const std::string& text : texts) {
    Result<spec::Expression> parsed = ParseExpression(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(PrintExpression(*parsed), text);
    // And the tree survives another trip.
    Result<spec::Expression> again = ParseExpression(PrintExpression(*parsed));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->SerializeAsString(), parsed->SerializeAsString()) << text;
  }
}

TEST(ExpressionParseTest, OtherSpellingsPrintCanonically) {
  const std::pair<std::string, std::string> cases[] = {
      {"x*0.5+1", "x * 0.5 + 1"},
      {"((x))", "x"},
      {"a && b || !c", "a and b or not c"},
      {"add(x, 1)", "x + 1"},
      {"2.", "2.0"},
      {".25", "0.25"},
      {"1e3", "1e+03"},
      {"- 2", "-2"},
      {"x - -2", "x - -2"},
      {"0.1", "0.1"},
      {"`x`", "x"},
      {"`and`", "`and`"},
  };
  for (const auto& [text, printed] : cases) {
    Result<spec::Expression> parsed = ParseExpression(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
    EXPECT_EQ(PrintExpression(*parsed), printed) << text;
  }
}

TEST(ExpressionParseTest, TreeShape) {
  Result<spec::Expression> e = ParseExpression("x * 0.5 + 1");
  ASSERT_TRUE(e.ok());
  ASSERT_EQ(e->call().op(), spec::Expression::ADD);
  EXPECT_EQ(e->call().args(0).call().op(), spec::Expression::MUL);
  EXPECT_EQ(e->call().args(0).call().args(0).component(), "x");
  EXPECT_EQ(e->call().args(0).call().args(1).constant().float_values(0), 0.5);
  EXPECT_TRUE(e->call().args(0).call().args(1).constant().dtype().empty());  // untyped
  EXPECT_EQ(e->call().args(1).constant().int_values(0), 1);
}

TEST(ExpressionParseTest, ErrorsNameTheColumn) {
  const std::pair<std::string, std::string> cases[] = {
      {"x * * 2", "expression \"x * * 2\": column 5: expected an operand, found '*'"},
      {"x +", "expression \"x +\": column 4: expected an operand, found the end"},
      {"(x + 1", "expression \"(x + 1\": column 7: expected ')', found the end"},
      {"x y", "expression \"x y\": column 3: expected an operator or the end of the text, found 'y'"},
      {"a < b < c", "expression \"a < b < c\": column 7: expected no second comparison (comparisons do not chain: "
                    "write a < b and b < c), found '<'"},
      {"frob(x)", "expression \"frob(x)\": column 1: expected a known function (\"frob\" is none), found 'f'"},
      {"abs(x, y)", "expression \"abs(x, y)\": column 9: expected 1 argument for abs, found ')'"},
      {"cast(x, float33)", "expression \"cast(x, float33)\": column 9: expected a dtype (float32, int64, ...), found 'f'"},
      {"slice(x, 0, 1.5)", "expression \"slice(x, 0, 1.5)\": column 13: expected an integer, found '1'"},
      {"[1, [2]]", "expression \"[1, [2]]\": column 5: expected list items of one kind and shape, found '['"},
      {"int32(1.5)", "expression \"int32(1.5)\": column 10: expected integer values for int32(...), found ')'"},
      {"99999999999999999999", "expression \"99999999999999999999\": column 1: expected an integer within int64, found '9'"},
      {"\"abc", "expression \"\"abc\": column 5: expected a closing \", found the end"},
  };
  for (const auto& [text, message] : cases) {
    Result<spec::Expression> parsed = ParseExpression(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(parsed.status().message(), message);
  }
}

TEST(ExpressionParseTest, BoundsUntrustedInput) {
  const std::string deep = std::string(200, '(') + "x" + std::string(200, ')');
  Result<spec::Expression> nested = ParseExpression(deep);
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("levels of nesting"), std::string::npos) << nested.status();
  std::string long_list = "[0";
  for (int i = 0; i < kMaxLiteralValues; ++i) long_list += ", 0";
  Result<spec::Expression> list = ParseExpression(long_list + "]");
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.status().message().find("at most 4096 values"), std::string::npos) << list.status();
}

TEST(ExpressionParseTest, PlainIdentifiers) {
  EXPECT_TRUE(IsPlainIdentifier("tokens_2"));
  EXPECT_FALSE(IsPlainIdentifier("2x"));
  EXPECT_FALSE(IsPlainIdentifier("not"));
  EXPECT_FALSE(IsPlainIdentifier("a/b"));
  EXPECT_EQ(PrintComponentName("a`b"), "`a\\`b`");
}

}  // namespace
}  // namespace sluice

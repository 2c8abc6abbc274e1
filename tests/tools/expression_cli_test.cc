// `sluice run`, `describe` and `profile` on a spec whose map, filter and
// bucket_by_sequence_length length are expressions
// (examples/specs/expressions.pbtxt), and the errors such a spec can give.

#include "sluice/tests/tools/cli_runner.h"

namespace sluice {
namespace {

constexpr char kSpec[] = "examples/specs/expressions.pbtxt";

TEST(ExpressionCliTest, Run) {
  const CliResult result = RunCli(std::string("run ") + kSpec);
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.lines,
            (Lines{
                R"({"tokens": [[1, 0, 0, 0], [6, 7, 0, 0]], "n": [1, 2], "mask": [[1, 0, 0, 0], [1, 1, 0, 0]], "score": [1.5, 2]})",
                R"({"tokens": [[2, 3, 4, 5], [11, 12, 13, 14]], "n": [4, 4], "mask": [[1, 1, 1, 1], [1, 1, 1, 1]], "score": [3, 3]})",
                R"({"tokens": [[15, 0, 0, 0]], "n": [1], "mask": [[1, 0, 0, 0]], "score": [1.5]})",
            }));
}

TEST(ExpressionCliTest, DescribePrintsTheExpressions) {
  const CliResult result = RunCli(std::string("describe ") + kSpec);
  EXPECT_EQ(result.exit_code, 0);
  ASSERT_EQ(result.lines.size(), 4u);
  EXPECT_EQ(result.lines[0].rfind("bucket_by_sequence_length(length=n, bucket_boundaries=[3], ", 0), 0u)
      << result.lines[0];
  EXPECT_EQ(result.lines[1], "  filter(predicate=expression(n != 3)) -> (tokens: int64[4], n: int64[], mask: "
                             "int64[4], score: float32[]) cardinality=unknown");
  EXPECT_EQ(result.lines[2], "    map(fn=expression(keep inputs; mask = cast([0, 1, 2, 3] < n, int64), score = "
                             "cast(n, float32) * 0.5 + 1)) -> (tokens: int64[4], n: int64[], mask: int64[4], score: "
                             "float32[]) cardinality=6");
}

TEST(ExpressionCliTest, ProfileNamesTheStages) {
  const CliResult result = RunCli(std::string("profile ") + kSpec + " --seconds 0.2");
  EXPECT_EQ(result.exit_code, 0);
  std::string text;
  for (const std::string& line : result.lines) text += line + "\n";
  for (const char* expected : {"bucket_by_sequence_length", "filter", "map", "from_slices", "Verdict: "}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  }
}

// `sluice run` on a spec mapping range(3) with `output`, which fails with an
// error whose last line holds `message`.
void ExpectRunError(const std::string& name, const std::string& output, const std::string& message) {
  const std::string spec = WriteSpec(name, "ops { range { stop: 3 } }\nops { map { fn { expression { " + output + " } } } }\n");
  const CliResult result = RunCli("run " + spec, true);
  EXPECT_EQ(result.exit_code, 1);
  ASSERT_FALSE(result.lines.empty());
  EXPECT_NE(result.lines.back().find(message), std::string::npos) << result.lines.back();
}

TEST(ExpressionCliTest, ErrorsNameTheExpression) {
  ExpectRunError("syntax.pbtxt", R"(output { name: "y" text: "`0` * * 2" })",
                 "expression: output y: expression \"`0` * * 2\": column 7: expected an operand, found '*'");
  ExpectRunError("types.pbtxt", R"(output { name: "y" text: "`0` * 0.5" })",
                 "outputs[0]: mul: args[1] (0.5): a float literal cannot take dtype int64, the dtype of args[0] (`0`) "
                 "is int64[]");
}

}  // namespace
}  // namespace sluice

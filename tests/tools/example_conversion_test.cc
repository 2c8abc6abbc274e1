// Examples from CSV and JSON lines (tools/example_conversion.h): each
// feature's kind over the whole input, exact integers, and errors that name
// the line and column.
#include "sluice/tools/example_conversion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

namespace sluice::cli {
namespace {

using ::testing::HasSubstr;

const tensorflow::Feature& FeatureOf(const tensorflow::Example& example, const std::string& key) {
  static const tensorflow::Feature kMissing;
  const auto& features = example.features().feature();
  const auto it = features.find(key);
  return it == features.end() ? kMissing : it->second;
}

std::vector<int64_t> Ints(const std::vector<tensorflow::Example>& examples, const std::string& key) {
  std::vector<int64_t> values;
  for (const auto& e : examples) {
    for (int64_t v : FeatureOf(e, key).int64_list().value()) values.push_back(v);
  }
  return values;
}

std::vector<float> Floats(const std::vector<tensorflow::Example>& examples, const std::string& key) {
  std::vector<float> values;
  for (const auto& e : examples) {
    for (float v : FeatureOf(e, key).float_list().value()) values.push_back(v);
  }
  return values;
}

std::string ErrorOf(const Result<std::vector<tensorflow::Example>>& result) {
  return result.ok() ? "OK" : result.status().message();
}

TEST(ExamplesFromCsvTest, KindsPerColumn) {
  const auto examples = ExamplesFromCsv("i,f,s,big\n1,1.5,a,1\n-3, 2 ,b,1e19\n2.0,,c,3\n");
  ASSERT_TRUE(examples.ok()) << examples.status();
  EXPECT_EQ(Ints(*examples, "i"), (std::vector<int64_t>{1, -3, 2}));
  EXPECT_EQ(Floats(*examples, "f"), (std::vector<float>{1.5f, 2}));
  EXPECT_EQ(FeatureOf((*examples)[2], "f").kind_case(), tensorflow::Feature::KIND_NOT_SET);  // empty cell
  EXPECT_EQ(FeatureOf((*examples)[1], "s").bytes_list().value(0), "b");
  // 1e19 does not fit int64: the whole column is float.
  EXPECT_EQ(Floats(*examples, "big"), (std::vector<float>{1, 1e19f, 3}));
}

TEST(ExamplesFromCsvTest, IntegersAreExactToInt64sLimits) {
  const auto examples = ExamplesFromCsv("n\n9223372036854775807\n-9223372036854775808\n9007199254740993\n");
  ASSERT_TRUE(examples.ok()) << examples.status();
  EXPECT_EQ(Ints(*examples, "n"), (std::vector<int64_t>{INT64_MAX, INT64_MIN, 9007199254740993}));
  // One past int64: float.
  const auto past = ExamplesFromCsv("n\n9223372036854775808\n1\n");
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_EQ(Floats(*past, "n"), (std::vector<float>{9223372036854775808.0f, 1}));
}

TEST(ExamplesFromCsvTest, NonFiniteWordsAreFloatsAndOverflowIsAnError) {
  const auto examples = ExamplesFromCsv("x\ninf\n-Infinity\nnan\n1\n");
  ASSERT_TRUE(examples.ok()) << examples.status();
  const std::vector<float> x = Floats(*examples, "x");
  ASSERT_EQ(x.size(), 4u);
  EXPECT_EQ(x[0], INFINITY);
  EXPECT_EQ(x[1], -INFINITY);
  EXPECT_TRUE(std::isnan(x[2]));
  EXPECT_EQ(x[3], 1);
  EXPECT_EQ(ErrorOf(ExamplesFromCsv("a,x\n1,2\n2,1e400\n")),
            "CSV line 3, column 2 ('x'): '1e400' is out of float32's range (magnitude at most 3.40282e+38)");
  EXPECT_THAT(ErrorOf(ExamplesFromCsv("x\n1e39\n")), HasSubstr("CSV line 2, column 1 ('x'): '1e39' is out of"));
  // Not numbers at all: bytes, never a wrapped integer.
  const auto words = ExamplesFromCsv("x\n0x10\n1e\n");
  ASSERT_TRUE(words.ok()) << words.status();
  EXPECT_EQ(FeatureOf((*words)[0], "x").bytes_list().value(0), "0x10");
}

TEST(ExamplesFromCsvTest, HeaderNamesAreDistinctAndTheBomIsSkipped) {
  EXPECT_EQ(ErrorOf(ExamplesFromCsv("a,b,a\n1,2,3\n")), "CSV line 1: columns 1 and 3 are both named 'a'");
  EXPECT_EQ(ErrorOf(ExamplesFromCsv("a,,c\n1,2,3\n")), "CSV line 1, column 2: no name");
  const auto bom = ExamplesFromCsv("\xEF\xBB\xBFid,v\n7,x\n");
  ASSERT_TRUE(bom.ok()) << bom.status();
  EXPECT_EQ(Ints(*bom, "id"), (std::vector<int64_t>{7}));
}

TEST(ExamplesFromCsvTest, QuotedCellsHoldCommasQuotesAndNewlines) {
  const auto examples = ExamplesFromCsv("id,text\r\n1,\"line one\r\nline \"\"two\"\", end\"\r\n2,plain\r\n");
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 2u);
  EXPECT_EQ(FeatureOf((*examples)[0], "text").bytes_list().value(0), "line one\r\nline \"two\", end");
  EXPECT_EQ(Ints(*examples, "id"), (std::vector<int64_t>{1, 2}));
  // Line numbers count the newlines inside quotes.
  EXPECT_EQ(ErrorOf(ExamplesFromCsv("a,b\n\"x\ny\",1\n3\n")), "CSV line 4: 1 cells, but the header has 2");
  EXPECT_EQ(ErrorOf(ExamplesFromCsv("a,b\n1,2\n3,\"open\n")),
            "CSV line 3, column 3: unterminated quote (no closing '\"' before the end of the input)");
}

TEST(ExamplesFromJsonLinesTest, IntegersAreExactAbove2To53) {
  const auto examples = ExamplesFromJsonLines(
      "\xEF\xBB\xBF{\"id\": 9007199254740993, \"max\": 9223372036854775807}\n{\"id\": -9223372036854775808, \"max\": "
      "1}\n",
      "in.jsonl");
  ASSERT_TRUE(examples.ok()) << examples.status();
  EXPECT_EQ(Ints(*examples, "id"), (std::vector<int64_t>{9007199254740993, INT64_MIN}));
  EXPECT_EQ(Ints(*examples, "max"), (std::vector<int64_t>{INT64_MAX, 1}));
}

TEST(ExamplesFromJsonLinesTest, OneKindPerKeyOverTheWholeInput) {
  const auto examples = ExamplesFromJsonLines(
      "{\"x\": 1, \"flag\": true, \"tags\": [\"a\", \"b\"]}\n\n{\"x\": [2.5, 3], \"flag\": false, \"tags\": []}\n",
      "in.jsonl");
  ASSERT_TRUE(examples.ok()) << examples.status();
  ASSERT_EQ(examples->size(), 2u);
  // 2.5 on line 3 makes x float on line 1 too.
  EXPECT_EQ(Floats(*examples, "x"), (std::vector<float>{1, 2.5f, 3}));
  EXPECT_EQ(Ints(*examples, "flag"), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(FeatureOf((*examples)[1], "tags").kind_case(), tensorflow::Feature::kBytesList);
  EXPECT_EQ(ErrorOf(ExamplesFromJsonLines("{\"x\": 1}\n{\"x\": \"one\"}\n", "in.jsonl")),
            "in.jsonl:2: feature 'x' has strings (line 2) and numbers (line 1); a feature holds one kind");
}

TEST(ExamplesFromJsonLinesTest, ErrorsNameTheLineAndColumn) {
  struct Case {
    std::string text;
    std::string error;
  };
  for (const Case& c : {
           Case{"{\"a\": 1}\n{\"a\" 2}\n", "in.jsonl:2: column 6: expected ':' after a key, found '2'"},
           Case{"{\"a\": 1, \"a\": 2}\n", "in.jsonl:1: column 10: key 'a' appears twice"},
           Case{"{\"a\": null}\n",
                "in.jsonl:1: column 7: feature 'a': values must be numbers, booleans or strings, "
                "or lists of them"},
           Case{"{\"a\": 1e400}\n",
                "in.jsonl:1: feature 'a': '1e400' is out of float32's range (magnitude at most "
                "3.40282e+38)"},
           Case{"{\"a\": 1.2.3}\n", "in.jsonl:1: feature 'a': '1.2.3' is not a number"},
           Case{"[1]\n", "in.jsonl:1: column 1: expected a JSON object ('{'), found '['"},
           Case{"{\"a\": \"x\\ud800\"}\n", "in.jsonl:1: column 15: unpaired surrogate in a \\u escape, found '\"'"},
       }) {
    EXPECT_EQ(ErrorOf(ExamplesFromJsonLines(c.text, "in.jsonl")), c.error) << c.text;
  }
  const auto escaped = ExamplesFromJsonLines(R"({"s": "caf\u00e9 \ud83d\ude00 \"q\""})", "in.jsonl");
  ASSERT_TRUE(escaped.ok()) << escaped.status();
  EXPECT_EQ(FeatureOf((*escaped)[0], "s").bytes_list().value(0), "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\"");
}

}  // namespace
}  // namespace sluice::cli

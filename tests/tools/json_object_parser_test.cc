// One flat JSON object (tools/json_object_parser.h): values, escapes, and
// errors that say where and what was expected.
#include "sluice/tools/json_object_parser.h"

#include <gtest/gtest.h>

namespace sluice::cli {
namespace {

TEST(JsonObjectParserTest, ScalarsListsAndEscapes) {
  const Result<std::vector<JsonField>> fields =
      ParseFlatJsonObject(R"( { "n": -12345678901234567890, "b": false, "l": [1.5e3, true, "\u00e9\n"], "e": [] } )");
  ASSERT_TRUE(fields.ok()) << fields.status();
  ASSERT_EQ(fields->size(), 4u);
  EXPECT_EQ((*fields)[0].key, "n");
  ASSERT_EQ((*fields)[0].values.size(), 1u);
  EXPECT_EQ((*fields)[0].values[0].kind, JsonScalar::Kind::kNumber);
  EXPECT_EQ((*fields)[0].values[0].text, "-12345678901234567890");  // as written: the caller decides
  EXPECT_EQ((*fields)[1].values[0].kind, JsonScalar::Kind::kBool);
  EXPECT_EQ((*fields)[1].values[0].text, "false");
  ASSERT_EQ((*fields)[2].values.size(), 3u);
  EXPECT_EQ((*fields)[2].values[0].text, "1.5e3");
  EXPECT_EQ((*fields)[2].values[2].kind, JsonScalar::Kind::kString);
  EXPECT_EQ((*fields)[2].values[2].text, "\xC3\xA9\n");
  EXPECT_TRUE((*fields)[3].values.empty());
}

TEST(JsonObjectParserTest, ErrorsSayWhereAndWhat) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "column 1: expected a JSON object ('{'), found the end of the line"},
      {R"({"a": 1,})", "column 9: expected a key (a string), found '}'"},
      {R"({"a": [[1]]})", "column 8: feature 'a': values must be numbers, booleans or strings, or lists of them"},
      {R"({"a": 1} x)", "column 10: unexpected text after the object, found 'x'"},
      {R"({"a": "\q"})", "column 9: unknown escape in a string, found 'q'"},
      {R"({"a": "\u12"})", "column 10: expected four hex digits after \\u, found '1'"},
      {"{\"a\": \"tab\there\"}", "column 11: control character in a string (escape it), found '\t'"},
      {R"({"a": NaN})", "column 7: expected a value, found 'N'"},
  };
  for (const auto& [text, error] : cases) {
    EXPECT_EQ(ParseFlatJsonObject(text).status().message(), error) << text;
  }
}

}  // namespace
}  // namespace sluice::cli

// RFC 4180 records (tools/csv_parser.h): quoting, line numbers, the BOM.
#include "sluice/tools/csv_parser.h"

#include <gtest/gtest.h>

namespace sluice::cli {
namespace {

using Cells = std::vector<std::string>;

TEST(CsvParserTest, RecordsWithQuotedCellsAndTheirLines) {
  const Result<std::vector<CsvRecord>> records =
      ParseCsv("\xEF\xBB\xBFh1,h2\r\n\r\n\"a,b\",\"say \"\"hi\"\"\"\n\"two\nlines\",x\n\"\"\nlast,");
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 5u);
  const std::vector<std::pair<int64_t, Cells>> expected = {
      {1, {"h1", "h2"}}, {3, {"a,b", "say \"hi\""}}, {4, {"two\nlines", "x"}}, {6, {""}}, {7, {"last", ""}}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ((*records)[i].line, expected[i].first) << i;
    EXPECT_EQ((*records)[i].cells, expected[i].second) << i;
  }
}

TEST(CsvParserTest, AnUnterminatedQuoteNamesWhereItOpened) {
  EXPECT_EQ(ParseCsv("a,b\nc,\"d\ne\n").status().message(),
            "CSV line 2, column 3: unterminated quote (no closing '\"' before the end of the input)");
  EXPECT_TRUE(ParseCsv("").ok());
  EXPECT_TRUE(ParseCsv("").value().empty());
}

}  // namespace
}  // namespace sluice::cli

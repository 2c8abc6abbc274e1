#include "sluice/tools/csv_parser.h"

namespace sluice::cli {

Result<std::vector<CsvRecord>> ParseCsv(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CsvRecord> records;
  CsvRecord record{.line = 1, .cells = {""}};
  int64_t line = 1;
  size_t line_start = 0;
  int64_t quote_line = 0, quote_column = 0;  // where the open quote is; 0 when none
  bool quoted = false;                       // the record has a quoted cell
  // A record of one empty, unquoted cell is a blank line.
  const auto end_record = [&](int64_t next_line) {
    if (record.cells.size() > 1 || !record.cells[0].empty() || quoted) records.push_back(std::move(record));
    record = {.line = next_line, .cells = {""}};
    quoted = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (quote_line != 0) {
      if (c != '"') {
        record.cells.back() += c;
      } else if (i + 1 < text.size() && text[i + 1] == '"') {
        record.cells.back() += '"';
        ++i;
      } else {
        quote_line = 0;
      }
    } else if (c == '"') {
      quoted = true;
      quote_line = line;
      quote_column = static_cast<int64_t>(i - line_start) + 1;
    } else if (c == ',') {
      record.cells.emplace_back();
    } else if (c == '\n') {
      end_record(line);
    } else if (c != '\r') {
      record.cells.back() += c;
    }
  }
  if (quote_line != 0) {
    return InvalidArgumentError("CSV line ", quote_line, ", column ", quote_column,
                                ": unterminated quote (no closing '\"' before the end of the input)");
  }
  end_record(line);
  return records;
}

}  // namespace sluice::cli

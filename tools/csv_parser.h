// Splitting CSV text into records of cells (RFC 4180), for `sluice tfrecord
// write`: tools/example_conversion.h turns the records into Examples.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/status.h"

namespace sluice::cli {

struct CsvRecord {
  int64_t line = 0;  // 1-based line where the record starts
  std::vector<std::string> cells;
};

// The records of `text`: cells separated by ',', records by LF or CRLF. A
// cell in double quotes may hold ',', CR, LF and "" for one quote; text
// right after a closing quote joins the cell. A UTF-8 byte-order mark
// before the first record is skipped, and so are blank lines. An
// unterminated quote is an error naming the line and column where it opened.
Result<std::vector<CsvRecord>> ParseCsv(std::string_view text);

}  // namespace sluice::cli

#include "sluice/core/line_difference.h"

#include <algorithm>

namespace sluice {

std::optional<LineDifference> FirstLineDifference(std::string_view a, std::string_view b) {
  if (a == b) return std::nullopt;
  int line = 1;
  for (; !a.empty() || !b.empty(); ++line) {
    const size_t a_end = std::min(a.find('\n'), a.size());
    const size_t b_end = std::min(b.find('\n'), b.size());
    if (a.substr(0, a_end) != b.substr(0, b_end)) return LineDifference{line, a.substr(0, a_end), b.substr(0, b_end)};
    a.remove_prefix(std::min(a_end + 1, a.size()));
    b.remove_prefix(std::min(b_end + 1, b.size()));
  }
  return LineDifference{line, {}, {}};
}

}  // namespace sluice

// FirstLineDifference: where two multi-line texts first differ, so that an
// error can say what differs (a saved pipeline or model description against
// the current one) instead of only that something does.
// Thread safety: a pure function.
#pragma once

#include <optional>
#include <string_view>

namespace sluice {

struct LineDifference {
  int line = 0;           // from 1
  std::string_view a, b;  // that line of each text (empty past its end)
};

// std::nullopt when a == b. Texts that differ only in line breaks give the
// line past the last one compared, with both sides empty.
std::optional<LineDifference> FirstLineDifference(std::string_view a, std::string_view b);

}  // namespace sluice

#include "sluice/tools/flags.h"

#include <charconv>
#include <cmath>

namespace sluice::cli {
namespace {

// Parses all of `text` as a T; false if anything is left over, the text is
// not a number or the number does not fit a T.
template <typename T>
bool ParseWhole(const std::string& text, T& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string FlagOr(const CommandArgs& args, const std::string& flag, std::string fallback) {
  auto it = args.flags.find(flag);
  return it == args.flags.end() ? fallback : it->second;
}

Result<int64_t> CountFlag(const CommandArgs& args, const std::string& flag, int64_t fallback, int64_t min,
                          int64_t max) {
  auto it = args.flags.find(flag);
  if (it == args.flags.end()) return fallback;
  int64_t value = 0;
  if (!ParseWhole(it->second, value) || value < min || value > max) {
    if (max == INT64_MAX) return InvalidArgumentError(flag, " expects a count >= ", min, ", got '", it->second, "'");
    return InvalidArgumentError(flag, " expects a count from ", min, " to ", max, ", got '", it->second, "'");
  }
  return value;
}

Result<double> DurationFlag(const CommandArgs& args, const std::string& flag, double fallback) {
  auto it = args.flags.find(flag);
  if (it == args.flags.end()) return fallback;
  double value = 0;
  if (!ParseWhole(it->second, value) || !std::isfinite(value) || !(value > 0) || value > kMaxFlagSeconds) {
    return InvalidArgumentError(flag, " expects a duration in seconds, > 0 and at most ",
                                static_cast<int64_t>(kMaxFlagSeconds), ", got '", it->second, "'");
  }
  return value;
}

}  // namespace sluice::cli

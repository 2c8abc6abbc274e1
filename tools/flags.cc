#include "tools/flags.h"

#include <charconv>

namespace sluice::cli {
namespace {

// Parses all of `text` as a T; false if anything is left over or invalid.
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

Result<int64_t> CountFlag(const CommandArgs& args, const std::string& flag, int64_t fallback, int64_t min) {
  auto it = args.flags.find(flag);
  if (it == args.flags.end()) return fallback;
  int64_t value = 0;
  if (!ParseWhole(it->second, value) || value < min) {
    return InvalidArgumentError(flag, " expects a count >= ", min, ", got '", it->second, "'");
  }
  return value;
}

Result<double> DurationFlag(const CommandArgs& args, const std::string& flag, double fallback) {
  auto it = args.flags.find(flag);
  if (it == args.flags.end()) return fallback;
  double value = 0;
  if (!ParseWhole(it->second, value) || !(value > 0)) {
    return InvalidArgumentError(flag, " expects a duration > 0, got '", it->second, "'");
  }
  return value;
}

}  // namespace sluice::cli

// Reading a command's flag values (CommandArgs, tools/commands.h): every
// number given on the command line goes through these, so each is checked
// the same way (all of the text parsed, finite, in range, whole where a
// count is needed) and a bad one is an InvalidArgument error naming the flag,
// what it expects and what it got.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "sluice/core/status.h"
#include "sluice/tools/commands.h"

namespace sluice::cli {

// The longest duration a flag accepts, in seconds (about 11.6 days).
inline constexpr double kMaxFlagSeconds = 1e6;

// The flag's text, or `fallback` when it is not given.
std::string FlagOr(const CommandArgs& args, const std::string& flag, std::string fallback = "");
// A whole number in [min, max], or `fallback` when not given:
// "--take expects a count >= 0, got '-3'",
// "--epochs expects a count from 1 to 1000, got '1e9'".
Result<int64_t> CountFlag(const CommandArgs& args, const std::string& flag, int64_t fallback, int64_t min = 0,
                          int64_t max = INT64_MAX);
// A finite number of seconds, > 0 and <= kMaxFlagSeconds, or `fallback`
// when not given: "--seconds expects a duration in seconds, > 0 and at most
// 1000000, got 'inf'".
Result<double> DurationFlag(const CommandArgs& args, const std::string& flag, double fallback);

}  // namespace sluice::cli

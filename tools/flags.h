// Reading a command's flag values (CommandArgs, tools/commands.h), with the
// InvalidArgument errors every command gives for a malformed one.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "tools/commands.h"

namespace sluice::cli {

// The flag's text, or `fallback` when it is not given.
std::string FlagOr(const CommandArgs& args, const std::string& flag, std::string fallback = "");
// A whole number >= `min`, or `fallback` when not given:
// "--take expects a count >= 0, got '-3'".
Result<int64_t> CountFlag(const CommandArgs& args, const std::string& flag, int64_t fallback, int64_t min = 0);
// A number > 0 (seconds), or `fallback` when not given.
Result<double> DurationFlag(const CommandArgs& args, const std::string& flag, double fallback);

}  // namespace sluice::cli

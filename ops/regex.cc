#include "sluice/ops/regex.h"

#include <re2/re2.h>

namespace sluice {

Result<std::shared_ptr<const re2::RE2>> CompileRegex(std::string_view what, const std::string& pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto regex = std::make_shared<const RE2>(pattern, options);
  if (!regex->ok()) return InvalidArgumentError(what, ": invalid pattern '", pattern, "': ", regex->error());
  return std::shared_ptr<const re2::RE2>(std::move(regex));
}

}  // namespace sluice

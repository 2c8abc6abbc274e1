// CompileRegex: an RE2 pattern compiled for the text kernels (regex_split,
// regex_replace), RE2's own logging off, its error returned instead.
// Thread safety: a pure function; a compiled RE2 may be shared by threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sluice/core/status.h"

namespace re2 {
class RE2;
}

namespace sluice {

// InvalidArgument "<what>: invalid pattern '<pattern>': <RE2's reason>" when
// the pattern does not compile.
Result<std::shared_ptr<const re2::RE2>> CompileRegex(std::string_view what, const std::string& pattern);

}  // namespace sluice

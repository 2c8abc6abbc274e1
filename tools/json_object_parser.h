// Reading one flat JSON object (RFC 8259), for `sluice tfrecord write`'s JSON
// lines: each value a string, number or boolean, or a list of them. Numbers
// stay as written, so that the caller can read integers exactly
// (tools/example_conversion.h); a general JSON library would round them to
// doubles above 2^53.
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sluice/core/status.h"

namespace sluice::cli {

struct JsonScalar {
  enum class Kind { kString, kNumber, kBool };
  Kind kind = Kind::kString;
  std::string text;  // a string's bytes (escapes decoded to UTF-8), a number as written, "true"/"false"
};

struct JsonField {
  std::string key;
  std::vector<JsonScalar> values;  // one for a scalar, any number for a list
};

// The fields of the object `text`, in order. Errors give the 1-based column
// (byte) and what was expected there: "column 9: expected ':' after a key";
// null, nested objects and lists of lists, and a key given twice, are
// errors too.
Result<std::vector<JsonField>> ParseFlatJsonObject(std::string_view text);

}  // namespace sluice::cli

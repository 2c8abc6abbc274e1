// Reading a vocabulary file for the text functions that look tokens up
// (lookup, wordpiece; text_functions.h): the file read whole, up to a size
// bound, then indexed (ops/vocabulary.h). Errors name the file, and the
// lines for an empty or repeated token.
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/ops/vocabulary.h"

namespace sluice {

// InvalidArgument when max_bytes < 1 or the file is larger; NotFound when
// it does not exist.
Result<std::shared_ptr<const Vocabulary>> ReadVocabularyFile(const std::string& path, int64_t max_bytes);

}  // namespace sluice

// Reading a vocabulary file for the text functions that look tokens up
// (lookup, wordpiece; text_functions.h): the file read whole, up to a size
// bound, then indexed (ops/vocabulary.h). The table's bytes are worked out
// from the text before it is built (Vocabulary::TableBytes) and must fit the
// RAM budget a traversal gets by default (DefaultRamBudget, half the
// available memory): a file of many short lines makes a table many times
// its size. The function then declares the table as bytes it holds
// (BoundElementFunction::held_bytes), which map charges to each traversal's
// own budget. Errors name the file, and the lines for an empty or repeated
// token.
// Thread safety: a pure function.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sluice/ops/vocabulary.h"

namespace sluice {

// InvalidArgument when max_bytes < 1 or the file is larger; NotFound when
// it does not exist; ResourceExhausted, before the table is built, when
// `copies` tables of it (wordpiece keeps a second index of the tokens) need
// more than `budget_bytes`, naming the file and the bytes needed and allowed.
Result<std::shared_ptr<const Vocabulary>> ReadVocabularyFile(const std::string& path, int64_t max_bytes,
                                                             int64_t copies, int64_t budget_bytes);

}  // namespace sluice

#include "sluice/dataset/vocabulary_file.h"

#include "sluice/dataset/text_proto_file.h"

namespace sluice {

Result<std::shared_ptr<const Vocabulary>> ReadVocabularyFile(const std::string& path, int64_t max_bytes,
                                                             int64_t copies, int64_t budget_bytes) {
  if (max_bytes < 1) return InvalidArgumentError("max_vocabulary_bytes must be positive, got ", max_bytes);
  SLUICE_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, {.what = "vocabulary",
                                                                .max_bytes = static_cast<size_t>(max_bytes),
                                                                .limit_name = "max_vocabulary_bytes"}));
  // The text is in memory, so for a few copies this cannot overflow.
  const int64_t needed = copies * Vocabulary::TableBytes(text);
  if (needed > budget_bytes) {
    return ResourceExhaustedError("vocabulary file '", path, "': its table needs ", needed, " bytes (", text.size(),
                                  " bytes of text, ", Vocabulary::kBytesPerToken,
                                  " per line), more than the RAM budget's ", budget_bytes, " bytes");
  }
  return Vocabulary::From(std::move(text), StrCat("vocabulary file '", path, "'"));
}

}  // namespace sluice

#include "sluice/dataset/vocabulary_file.h"

#include <gtest/gtest.h>

#include "contract.h"
#include "ops/image_test_util.h"
#include "temp_dir.h"

namespace sluice {
namespace {

using testing::ExpectStatus;
using testing::Ok;

// The table's bytes are checked against the budget before it is built:
// `copies` tables of 3 lines and 20 bytes of text need copies * (20 + 3 * 80).
TEST(ReadVocabularyFile, TableMustFitTheBudgetBeforeItIsBuilt) {
  testing::TempDir dir;
  const std::string vocab = dir.File("vocab.txt");
  testing::WriteFileBytes(vocab, "emerson\nlake\npalmer\n");
  const int64_t table = 20 + 3 * Vocabulary::kBytesPerToken;
  EXPECT_EQ(Ok(ReadVocabularyFile(vocab, 1 << 20, 1, table))->bytes(), table);
  ExpectStatus(ReadVocabularyFile(vocab, 1 << 20, 1, table - 1).status(), StatusCode::kResourceExhausted,
               StrCat("vocabulary file '", vocab, "': its table needs ", table, " bytes (20 bytes of text, 80 per line), ",
                      "more than the RAM budget's ", table - 1, " bytes"));
  Status twice = ReadVocabularyFile(vocab, 1 << 20, 2, 2 * table - 1).status();
  EXPECT_EQ(twice.code(), StatusCode::kResourceExhausted) << twice;
  EXPECT_NE(twice.message().find(StrCat("its table needs ", 2 * table, " bytes")), std::string::npos) << twice;
  // The file's own size bound comes first.
  Status large = ReadVocabularyFile(vocab, 4, 1, 1).status();
  EXPECT_EQ(large.code(), StatusCode::kInvalidArgument) << large;
  EXPECT_NE(large.message().find("larger than the limit of 4 bytes (max_vocabulary_bytes)"), std::string::npos)
      << large;
  ExpectStatus(ReadVocabularyFile(vocab, 0, 1, table).status(), StatusCode::kInvalidArgument,
               "max_vocabulary_bytes must be positive, got 0");
}

}  // namespace
}  // namespace sluice

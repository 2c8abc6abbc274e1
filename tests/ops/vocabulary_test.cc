#include "sluice/ops/vocabulary.h"

#include <gtest/gtest.h>

#include "sluice/ops/string_hash.h"

namespace sluice {
namespace {

std::shared_ptr<const Vocabulary> MakeVocabulary(std::string text) {
  Result<std::shared_ptr<const Vocabulary>> vocabulary = Vocabulary::From(std::move(text), "vocabulary 'test'");
  EXPECT_TRUE(vocabulary.ok()) << vocabulary.status();
  return vocabulary.ok() ? *vocabulary : nullptr;
}

Tensor Lookup(const Vocabulary& vocabulary, const std::vector<std::string>& tokens, int64_t num_oov_buckets,
              int64_t default_value = -1) {
  Result<Tensor> ids = LookupTokens(Tensor::FromVector(tokens), vocabulary, num_oov_buckets, default_value);
  EXPECT_TRUE(ids.ok()) << ids.status();
  return ids.ok() ? *ids : Tensor();
}

// The text plus kBytesPerToken per line, a last line without "\n" included,
// worked out before the table exists and equal to what the table reports.
TEST(VocabularyTest, TableBytesCountTheTextAndEveryLine) {
  constexpr int64_t kPerToken = Vocabulary::kBytesPerToken;
  EXPECT_EQ(Vocabulary::TableBytes(""), 0);
  EXPECT_EQ(Vocabulary::TableBytes("a\n"), 2 + kPerToken);
  EXPECT_EQ(Vocabulary::TableBytes("a\nbb"), 4 + 2 * kPerToken);
  EXPECT_EQ(Vocabulary::TableBytes("emerson\r\nlake\npalmer"), 20 + 3 * kPerToken);
  auto vocabulary = MakeVocabulary("emerson\r\nlake\npalmer");
  ASSERT_NE(vocabulary, nullptr);
  EXPECT_EQ(vocabulary->bytes(), 20 + 3 * kPerToken);
}

TEST(VocabularyTest, IdsAreLineNumbers) {
  auto vocabulary = MakeVocabulary("emerson\r\nlake\npalmer");
  ASSERT_NE(vocabulary, nullptr);
  EXPECT_EQ(vocabulary->size(), 3);
  EXPECT_EQ(vocabulary->Find("emerson"), 0);
  EXPECT_EQ(vocabulary->Find("palmer"), 2);
  EXPECT_EQ(vocabulary->Find("king"), std::nullopt);
  EXPECT_EQ(vocabulary->token(1), "lake");
  EXPECT_EQ(MakeVocabulary("")->size(), 0);
}

// The tf.lookup.StaticVocabularyTable documentation examples: keys with ids
// 0, 1, 2 and 5 OOV buckets; and a vocabulary file of 4 tokens with 3.
TEST(VocabularyTest, StaticVocabularyTableDocumentationExamples) {
  auto keys = MakeVocabulary("emerson\nlake\npalmer\n");
  EXPECT_TRUE(Lookup(*keys, {"emerson", "lake", "palmer", "king", "crimson"}, 5)
                  .Equals(Tensor::FromVector<int64_t>({0, 1, 2, 6, 7})));
  auto file = MakeVocabulary("emerson\nlake\npalmer\ncrimnson\n");
  EXPECT_TRUE(Lookup(*file, {"palmer", "crimnson", "king", "tarkus", "black", "moon"}, 3)
                  .Equals(Tensor::FromVector<int64_t>({2, 3, 5, 6, 6, 4})));
}

TEST(VocabularyTest, WithoutOovBucketsMissingTokensGetTheDefault) {
  auto vocabulary = MakeVocabulary("a\nb\n");
  EXPECT_TRUE(Lookup(*vocabulary, {"b", "zz", "a"}, 0, -7).Equals(Tensor::FromVector<int64_t>({1, -7, 0})));
  Result<Tensor> matrix =
      LookupTokens(Tensor::FromVector<std::string>({"a", "q", "b", "a"}, Shape{2, 2}), *vocabulary, 1, -1);
  ASSERT_TRUE(matrix.ok());
  EXPECT_TRUE(matrix->Equals(Tensor::FromVector<int64_t>({0, 2, 1, 0}, Shape{2, 2})));
}

TEST(VocabularyTest, BadFilesNameTheLines) {
  Result<std::shared_ptr<const Vocabulary>> repeated = Vocabulary::From("a\nb\nc\nb\n", "vocabulary file 'v.txt'");
  EXPECT_EQ(repeated.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(repeated.status().message(), "vocabulary file 'v.txt': line 4 repeats the token 'b' of line 2");
  Result<std::shared_ptr<const Vocabulary>> empty = Vocabulary::From("a\n\nb\n", "vocabulary file 'v.txt'");
  EXPECT_EQ(empty.status().message(), "vocabulary file 'v.txt': line 2 is empty; every line must hold a token");
}

TEST(VocabularyTest, LookupInvalidArguments) {
  auto vocabulary = MakeVocabulary("a\n");
  EXPECT_EQ(LookupTokens(Tensor::Scalar<int64_t>(1), *vocabulary, 1, -1).status().message(),
            "lookup: expected strings, got int64[]");
  EXPECT_EQ(LookupTokens(Tensor::Scalar("a"), *vocabulary, -1, -1).status().message(),
            "lookup: num_oov_buckets must be in [0, 9223372036854775806] beside 1 tokens, got -1");
  EXPECT_EQ(LookupTokens(Tensor::Scalar("b"), *vocabulary, INT64_MAX, -1).status().code(),
            StatusCode::kInvalidArgument);
  Result<Tensor> widest = LookupTokens(Tensor::Scalar("b"), *vocabulary, INT64_MAX - 1, -1);
  ASSERT_TRUE(widest.ok()) << widest.status();
  EXPECT_GE(widest->data<int64_t>()[0], 1);
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/wordpiece.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Strings(const std::vector<std::string>& values) { return Tensor::FromVector(values); }
Tensor Ints(const std::vector<int64_t>& values) { return Tensor::FromVector(values); }

WordpieceTokenizer MakeTokenizer(std::string vocabulary, WordpieceOptions options = {}) {
  Result<std::shared_ptr<const Vocabulary>> table = Vocabulary::From(std::move(vocabulary), "test vocabulary");
  EXPECT_TRUE(table.ok()) << table.status();
  Result<WordpieceTokenizer> tokenizer = WordpieceTokenizer::Make(*table, std::move(options));
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status();
  return *std::move(tokenizer);
}

constexpr WordpieceOutputs kAll{.ids = true, .tokens = true, .offsets = true};

// tf.text's WordpieceTokenizer documentation examples.
TEST(WordpieceTest, DocumentationExamples) {
  WordpieceTokenizer tokenizer = MakeTokenizer("they\n##'\n##re\nthe\ngreat\n##est\n");
  EXPECT_EQ(tokenizer.unknown_id(), 6);
  Result<Wordpieces> out = tokenizer.Tokenize(Strings({"they're", "the", "greatest"}), kAll);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->tokens.Equals(Strings({"they", "##'", "##re", "the", "great", "##est"}))) << out->tokens.ToJson();
  EXPECT_TRUE(out->ids.Equals(Ints({0, 1, 2, 3, 4, 5})));
  EXPECT_TRUE(out->start_offsets.Equals(Ints({0, 4, 5, 0, 0, 5}))) << out->start_offsets.ToJson();
  EXPECT_TRUE(out->end_offsets.Equals(Ints({4, 5, 7, 3, 5, 8}))) << out->end_offsets.ToJson();
  EXPECT_TRUE(out->row_lengths.Equals(Ints({3, 1, 2})));

  Result<Wordpieces> unknown = tokenizer.Tokenize(Strings({"they", "are", "great"}), kAll);
  ASSERT_TRUE(unknown.ok());
  EXPECT_TRUE(unknown->tokens.Equals(Strings({"they", "[UNK]", "great"}))) << unknown->tokens.ToJson();
  EXPECT_TRUE(unknown->ids.Equals(Ints({0, 6, 4})));
  EXPECT_TRUE(unknown->start_offsets.Equals(Ints({0, 0, 0})));
  EXPECT_TRUE(unknown->end_offsets.Equals(Ints({4, 3, 5})));
}

TEST(WordpieceTest, UnknownTokenInTheVocabularyHasItsId) {
  WordpieceTokenizer tokenizer = MakeTokenizer("[UNK]\nab\n##c\n");
  Result<Wordpieces> out = tokenizer.Tokenize(Strings({"abc", "abd", ""}), {.ids = true});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->ids.Equals(Ints({1, 2, 0})));
  EXPECT_TRUE(out->row_lengths.Equals(Ints({2, 1, 0})));
  EXPECT_FALSE(out->tokens.valid());
}

TEST(WordpieceTest, LimitsOnWordsAndTokens) {
  WordpieceTokenizer limited = MakeTokenizer("abc\na\n##bc\n##b\n##c\n", {.max_chars_per_token = 2});
  Result<Wordpieces> cut = limited.Tokenize(Tensor::Scalar("abc"), kAll);
  ASSERT_TRUE(cut.ok());
  EXPECT_TRUE(cut->tokens.Equals(Strings({"a", "##bc"}))) << cut->tokens.ToJson();
  WordpieceTokenizer whole = MakeTokenizer("abc\na\n##bc\n", {.max_bytes_per_word = 3});
  Result<Wordpieces> out = whole.Tokenize(Strings({"abc", "abcabc"}), kAll);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->tokens.Equals(Strings({"abc", "[UNK]"}))) << out->tokens.ToJson();
  EXPECT_TRUE(out->end_offsets.Equals(Ints({3, 6})));
}

// Pieces end on character boundaries; offsets are bytes.
TEST(WordpieceTest, MultiByteCharacters) {
  WordpieceTokenizer tokenizer = MakeTokenizer("caf\n##\u00e9\n\u00fc\n##ber\n", {.suffix_indicator = "##"});
  Result<Wordpieces> out = tokenizer.Tokenize(Strings({"caf\u00e9", "\u00fcber"}), kAll);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->tokens.Equals(Strings({"caf", "##\u00e9", "\u00fc", "##ber"}))) << out->tokens.ToJson();
  EXPECT_TRUE(out->start_offsets.Equals(Ints({0, 3, 0, 2})));
  EXPECT_TRUE(out->end_offsets.Equals(Ints({3, 5, 2, 5})));
}

TEST(WordpieceTest, InvalidArguments) {
  auto table = *Vocabulary::From("a\n", "test vocabulary");
  EXPECT_EQ(WordpieceTokenizer::Make(table, {.max_bytes_per_word = 0}).status().message(),
            "wordpiece: max_bytes_per_word must be in [1, 2^31 - 1], got 0");
  EXPECT_EQ(WordpieceTokenizer::Make(table, {.max_chars_per_token = -1}).status().message(),
            "wordpiece: max_chars_per_token must be >= 0 (0: no limit), got -1");
  EXPECT_EQ(WordpieceTokenizer::Make(table, {.unknown_token = ""}).status().message(),
            "wordpiece: unknown_token must not be empty");
  WordpieceTokenizer tokenizer = MakeTokenizer("a\n");
  EXPECT_EQ(tokenizer.Tokenize(Tensor::Scalar<int64_t>(1), {}).status().message(),
            "wordpiece: expected strings, got int64[]");
  EXPECT_EQ(tokenizer.Tokenize(Strings({"a", "\xe9t\xe9"}), {}).status().message(),
            "wordpiece: string 1 is not valid UTF-8: bad byte sequence at byte offset 0");
}

}  // namespace
}  // namespace sluice

#include "sluice/ops/text_split.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

Tensor Strings(const std::vector<std::string>& values) { return Tensor::FromVector(values); }

void ExpectTokens(const Result<SplitTokens>& split, const std::vector<std::string>& values,
                  const std::vector<int64_t>& row_lengths) {
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_TRUE(split->values.Equals(Strings(values))) << split->values.ToJson();
  EXPECT_TRUE(split->row_lengths.Equals(Tensor::FromVector(row_lengths))) << split->row_lengths.ToJson();
}

// tf.text's WhitespaceTokenizer example, runs of whitespace, Unicode
// whitespace (U+3000 ideographic space, U+00A0 no-break space), and strings
// without tokens.
TEST(SplitWhitespaceTest, SplitsAtRunsOfUnicodeWhitespace) {
  ExpectTokens(SplitWhitespace(Strings({"a bb ccc"})), {"a", "bb", "ccc"}, {3});
  ExpectTokens(SplitWhitespace(Strings({"  hello\t\n world  ", "", " \r\v\f", "x\u3000y\u00a0z"})),
               {"hello", "world", "x", "y", "z"}, {2, 0, 0, 3});
  ExpectTokens(SplitWhitespace(Tensor::Scalar("caf\u00e9 au\u2003lait")), {"caf\u00e9", "au", "lait"}, {3});
}

TEST(SplitWhitespaceTest, TokensViewTheInput) {
  Tensor input = Strings({"one two"});
  Result<SplitTokens> split = SplitWhitespace(input);
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->values.data<TString>()[1].data(), input.data<TString>()[0].data() + 4);
}

TEST(RegexSplitTest, DropsMatchesAndEmptyTokens) {
  // tf.text's regex_split example.
  RegexSplitter whitespace = *RegexSplitter::Make("\\s");
  ExpectTokens(whitespace.Split(Strings({"hello there"})), {"hello", "there"}, {2});
  RegexSplitter angle = *RegexSplitter::Make("<>");
  ExpectTokens(angle.Split(Strings({"1<>2<><>3", "<>", "4<>"})), {"1", "2", "3", "4"}, {3, 0, 1});
  RegexSplitter punctuation = *RegexSplitter::Make("[[:punct:]\\s]+");
  ExpectTokens(punctuation.Split(Tensor::Scalar("Hello, world! (x)")), {"Hello", "world", "x"}, {3});
  // An empty match splits nothing, and the search goes on one character on.
  RegexSplitter optional = *RegexSplitter::Make("-*");
  ExpectTokens(optional.Split(Strings({"a--b\u00e9c", "-"})), {"a", "b\u00e9c"}, {2, 0});
}

// tf.text's regex_split(keep_delim_regex_pattern=...) example, and BERT's
// basic tokenizer: split at whitespace and punctuation, keep the punctuation.
TEST(RegexSplitTest, KeepsMatchesOfTheKeepPattern) {
  RegexSplitter whitespace = *RegexSplitter::Make("\\s", "\\s");
  ExpectTokens(whitespace.Split(Strings({"hello there"})), {"hello", " ", "there"}, {3});
  RegexSplitter bert = *RegexSplitter::Make("\\s+|[!-/]|[:-@]|[\\[-`]|[{-~]|\\p{P}", "[!-/]|[:-@]|[\\[-`]|[{-~]|\\p{P}");
  ExpectTokens(bert.Split(Strings({"Hello, world!! \u00bfS\u00ed?", "  ", "a...b"})),
               {"Hello", ",", "world", "!", "!", "\u00bf", "S\u00ed", "?", "a", ".", ".", ".", "b"}, {8, 0, 5});
  // A match kept must match the keep pattern as a whole.
  RegexSplitter partly = *RegexSplitter::Make("[,;]+", ",");
  ExpectTokens(partly.Split(Tensor::Scalar("a,b;c,,d")), {"a", ",", "b", "c", "d"}, {5});
  EXPECT_EQ(RegexSplitter::Make(",", "(").status().message(),
            "regex_split: keep_delim_pattern: invalid pattern '(': missing ): (");
}

TEST(RegexSplitTest, BadPatternsAndInputs) {
  Result<RegexSplitter> bad = RegexSplitter::Make("(a");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "regex_split: invalid pattern '(a': missing ): (a");
  RegexSplitter any = *RegexSplitter::Make(",");
  EXPECT_EQ(any.Split(Tensor::Scalar<int64_t>(1)).status().message(), "regex_split: expected strings, got int64[]");
  EXPECT_EQ(any.Split(Strings({"ok", "a\xff,b"})).status().message(),
            "regex_split: string 1 is not valid UTF-8: bad byte sequence at byte offset 1");
  EXPECT_EQ(SplitWhitespace(Strings({"\xc3"})).status().message(),
            "split_whitespace: string 0 is not valid UTF-8: bad byte sequence at byte offset 0");
}

}  // namespace
}  // namespace sluice

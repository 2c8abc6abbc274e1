#include "sluice/ops/regex_replace.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice {
namespace {

std::vector<std::string> Replaced(const RegexReplacer& replacer, const std::vector<std::string>& in) {
  Result<Tensor> out = replacer.Replace(Tensor::FromVector(in));
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  std::vector<std::string> values;
  for (int64_t i = 0; i < out->NumElements(); ++i) values.emplace_back(std::string_view(out->data<TString>()[i]));
  return values;
}

// tf.strings.regex_replace's documentation example, groups, the first match
// only, and strings without a match.
TEST(RegexReplaceTest, ReplacesMatchesAsTensorFlow) {
  const RegexReplacer tags = *RegexReplacer::Make("<[^>]+>", " ");
  EXPECT_EQ(Replaced(tags, {"Text with tags.<br /><b>contains html</b>", "none"}),
            (std::vector<std::string>{"Text with tags.  contains html ", "none"}));
  const RegexReplacer swap = *RegexReplacer::Make("(\\w+)@(\\w+)", "\\2 at \\1 (\\0) \\\\");
  EXPECT_EQ(Replaced(swap, {"ann@home, bob@work"}),
            (std::vector<std::string>{"home at ann (ann@home) \\, work at bob (bob@work) \\"}));
  const RegexReplacer first = *RegexReplacer::Make("a", "A", /*replace_global=*/false);
  EXPECT_EQ(Replaced(first, {"banana", "xyz"}), (std::vector<std::string>{"bAnana", "xyz"}));
  // The shape is kept.
  Result<Tensor> matrix = tags.Replace(Tensor::FromVector<std::string>({"<a>", "b", "c", "<d>x"}, Shape{2, 2}));
  ASSERT_TRUE(matrix.ok());
  EXPECT_EQ(matrix->shape(), (Shape{2, 2}));
  EXPECT_EQ(std::string_view(matrix->data<TString>()[3]), " x");
}

// RE2::GlobalReplace's rules for empty matches: each position once, none
// right after a match; characters, not bytes, are stepped over.
TEST(RegexReplaceTest, EmptyMatchesFollowRe2) {
  EXPECT_EQ(Replaced(*RegexReplacer::Make("", "-"), {"abc", ""}), (std::vector<std::string>{"-a-b-c-", "-"}));
  EXPECT_EQ(Replaced(*RegexReplacer::Make("x*", "-"), {"axxb\u00e9"}), (std::vector<std::string>{"-a-b-\u00e9-"}));
  // BERT's accent stripping: NFD text, combining marks removed.
  EXPECT_EQ(Replaced(*RegexReplacer::Make("\\p{Mn}", ""), {"Ca\u0300 va\u0301"}), (std::vector<std::string>{"Ca va"}));
}

TEST(RegexReplaceTest, Errors) {
  EXPECT_EQ(RegexReplacer::Make("(a", "").status().message(), "regex_replace: invalid pattern '(a': missing ): (a");
  EXPECT_EQ(RegexReplacer::Make("(a)", "\\2").status().message(),
            "regex_replace: rewrite '\\2' for pattern '(a)': Rewrite schema requests 2 matches, but the regexp only "
            "has 1 parenthesized subexpressions.");
  EXPECT_EQ(RegexReplacer::Make("a", "\\x").status().code(), StatusCode::kInvalidArgument);
  const RegexReplacer any = *RegexReplacer::Make("a", "b");
  EXPECT_EQ(any.Replace(Tensor::Scalar<int64_t>(1)).status().message(), "regex_replace: expected strings, got int64[]");
  EXPECT_EQ(any.Replace(Tensor::FromVector<std::string>({"ok", "\xff"})).status().message(),
            "regex_replace: string 1 is not valid UTF-8: bad byte sequence at byte offset 0");
}

}  // namespace
}  // namespace sluice

// Splitting strings into tokens: at whitespace (tf.text's
// WhitespaceTokenizer) or at the matches of a regular expression (RE2;
// tf.text's regex_split). Each string of the input (any shape, taken in
// row-major order) gives its tokens, in order; the result is all of them
// end to end plus each string's token count, the values + row lengths form
// of a ragged tensor. Tokens are views of the input's bytes (no copy): the
// values tensor keeps the input's buffer alive.
// Errors: InvalidArgument for a non-string input and for ill-formed UTF-8
// (naming the string and the byte offset).
// Thread safety: pure functions; a RegexSplitter may be shared by threads.
#pragma once

#include <memory>
#include <string>

#include "sluice/core/tensor.h"

namespace re2 {
class RE2;
}

namespace sluice {

struct SplitTokens {
  Tensor values;       // string [total]: every string's tokens, end to end
  Tensor row_lengths;  // int64 [strings.NumElements()]: each string's count
};

// Tokens separated by runs of Unicode White_Space (ICU's u_isUWhiteSpace);
// the whitespace itself is dropped, so "" and " \t" give no tokens.
Result<SplitTokens> SplitWhitespace(const Tensor& strings);

// Splits at each non-empty match of a regular expression (RE2 syntax). The
// matches are dropped, and so are empty tokens (between two adjacent
// matches, or at either end), as tf.text's regex_split does; an empty match
// splits nothing.
class RegexSplitter {
 public:
  // InvalidArgument naming the pattern and RE2's reason when it doesn't compile.
  static Result<RegexSplitter> Make(const std::string& pattern);
  Result<SplitTokens> Split(const Tensor& strings) const;
  const std::string& pattern() const { return pattern_; }

 private:
  RegexSplitter(std::string pattern, std::shared_ptr<const re2::RE2> regex)
      : pattern_(std::move(pattern)), regex_(std::move(regex)) {}
  std::string pattern_;
  std::shared_ptr<const re2::RE2> regex_;
};

}  // namespace sluice

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
// matches are dropped, unless a match as a whole also matches
// `keep_pattern` (when given): then it is a token of its own, as tf.text's
// regex_split(keep_delim_regex_pattern=...) keeps it (BERT's basic
// tokenizer splits at whitespace and punctuation and keeps the
// punctuation). Empty tokens (between two adjacent matches, or at either
// end) are dropped; an empty match splits nothing.
class RegexSplitter {
 public:
  // InvalidArgument naming the pattern and RE2's reason when either doesn't compile.
  static Result<RegexSplitter> Make(const std::string& pattern, const std::string& keep_pattern = "");
  Result<SplitTokens> Split(const Tensor& strings) const;
  const std::string& pattern() const { return pattern_; }
  const std::string& keep_pattern() const { return keep_pattern_; }

 private:
  RegexSplitter(std::string pattern, std::shared_ptr<const re2::RE2> regex, std::string keep_pattern,
                std::shared_ptr<const re2::RE2> keep)
      : pattern_(std::move(pattern)),
        regex_(std::move(regex)),
        keep_pattern_(std::move(keep_pattern)),
        keep_(std::move(keep)) {}
  std::string pattern_;
  std::shared_ptr<const re2::RE2> regex_;
  std::string keep_pattern_;
  std::shared_ptr<const re2::RE2> keep_;  // null: no match is kept
};

}  // namespace sluice

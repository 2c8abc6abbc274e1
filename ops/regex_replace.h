// RegexReplacer: tf.strings.regex_replace: in each string of a tensor (any
// shape), the matches of an RE2 pattern are replaced by `rewrite`, where
// \1 to \9 stand for the match's groups, \0 for the whole match and \\ for
// a backslash: every match (replace_global, RE2::GlobalReplace's rules: an
// empty match right after a match is skipped) or the first. Strings without
// a match are kept as they are. As tf.text's BERT tokenizer strips accents:
// NFD, then "\p{Mn}" replaced by "".
// Errors: InvalidArgument for a pattern that doesn't compile, a rewrite
// that names a group the pattern lacks or has a bad escape (at Make), a
// non-string input or ill-formed UTF-8; ResourceExhausted for a result
// string past 2^31 - 1 bytes, found before it is written.
// Thread safety: a RegexReplacer is immutable and may be shared by threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sluice/core/tensor.h"

namespace re2 {
class RE2;
}

namespace sluice {

class RegexReplacer {
 public:
  static Result<RegexReplacer> Make(const std::string& pattern, const std::string& rewrite,
                                    bool replace_global = true);
  Result<Tensor> Replace(const Tensor& strings) const;

  const std::string& pattern() const { return pattern_; }
  const std::string& rewrite() const { return rewrite_; }
  bool replace_global() const { return replace_global_; }

 private:
  // The rewrite as pieces: literal bytes, or a group (-1: none).
  struct Piece {
    std::string literal;
    int group = -1;
  };
  RegexReplacer(std::string pattern, std::string rewrite, bool replace_global, std::shared_ptr<const re2::RE2> regex,
                std::vector<Piece> pieces, int groups)
      : pattern_(std::move(pattern)),
        rewrite_(std::move(rewrite)),
        replace_global_(replace_global),
        regex_(std::move(regex)),
        pieces_(std::move(pieces)),
        groups_(groups) {}

  std::string pattern_;
  std::string rewrite_;
  bool replace_global_;
  std::shared_ptr<const re2::RE2> regex_;
  std::vector<Piece> pieces_;
  int groups_;  // the groups a match fills: 1 + the largest one the rewrite names
};

}  // namespace sluice
